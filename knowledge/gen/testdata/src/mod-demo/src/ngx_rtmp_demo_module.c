/* A made-up third-party module, for knowledge/gen's tests. */
static ngx_command_t  ngx_rtmp_demo_commands[] = {

    { ngx_string("demo_flag"),
      NGX_RTMP_MAIN_CONF|NGX_RTMP_SRV_CONF|NGX_RTMP_APP_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_RTMP_APP_CONF_OFFSET,
      offsetof(ngx_rtmp_demo_app_conf_t, enable),
      NULL },

      ngx_null_command
};
