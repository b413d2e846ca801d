/* A test-suite file: knowledge/gen must not read it. */
static ngx_command_t  ngx_http_ignored_commands[] = {
    { ngx_string("ignored_directive"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_flag_slot,
      0,
      0,
      NULL },
      ngx_null_command
};
