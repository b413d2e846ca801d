/* A made-up module shaped like nginx's, for knowledge/gen's tests. */
#define NGX_DEMO_OFF          0
#define NGX_DEMO_ON           1
#define NGX_DEMO_ALWAYS       2
#define NGX_DEMO_CHUNK        4096
#define NGX_DEMO_BUSY         (2 * NGX_DEMO_CHUNK)

static ngx_conf_enum_t  ngx_http_demo_modes[] = {
    { ngx_string("off"), NGX_DEMO_OFF },
    { ngx_string("on"), NGX_DEMO_ON },
    { ngx_string("always"), NGX_DEMO_ALWAYS },
    { ngx_null_string, 0 }
};

static ngx_command_t  ngx_http_demo_commands[] = {

    { ngx_string("demo_flag"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_FLAG,
      ngx_conf_set_flag_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_demo_loc_conf_t, enable),
      NULL },

    { ngx_string("demo_timeout"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_msec_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_demo_loc_conf_t, timeout),
      NULL },

    { ngx_string("demo_buffer_size"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_demo_loc_conf_t, buffer_size),
      NULL },

    { ngx_string("demo_buffers"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE2,
      ngx_conf_set_bufs_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_demo_loc_conf_t, bufs),
      NULL },

    { ngx_string("demo_busy_size"),
      NGX_HTTP_MAIN_CONF|NGX_HTTP_SRV_CONF|NGX_HTTP_LOC_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_size_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_demo_loc_conf_t, busy_size),
      NULL },

    { ngx_string("demo_mode"),
      NGX_HTTP_LOC_CONF|NGX_HTTP_LIF_CONF|NGX_CONF_TAKE1,
      ngx_conf_set_enum_slot,
      NGX_HTTP_LOC_CONF_OFFSET,
      offsetof(ngx_http_demo_loc_conf_t, mode),
      &ngx_http_demo_modes },

    { ngx_string("demo_zone"),
      NGX_HTTP_MAIN_CONF|NGX_CONF_TAKE12,
      ngx_http_demo_zone,
      NGX_HTTP_MAIN_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("demo_rule"),
      NGX_HTTP_LOC_CONF|NGX_CONF_1MORE,
      ngx_http_demo_rule,
      NGX_HTTP_LOC_CONF_OFFSET,
      0,
      NULL },

    { ngx_string("demo_block"),
      NGX_HTTP_SRV_CONF|NGX_CONF_BLOCK|NGX_CONF_NOARGS,
      ngx_http_demo_block,
      0,
      0,
      NULL },

    { ngx_string("demo_direct"),
      NGX_DIRECT_CONF|NGX_CONF_TAKE1,
      ngx_http_demo_direct,
      0,
      0,
      NULL },

      ngx_null_command
};

static ngx_http_variable_t  ngx_http_demo_vars[] = {

    { ngx_string("demo_state"), NULL, ngx_http_demo_state_variable, 0,
      NGX_HTTP_VAR_NOCACHEABLE, 0 },

    { ngx_string("demo_"), NULL, ngx_http_demo_family_variable, 0,
      NGX_HTTP_VAR_PREFIX, 0 },

      ngx_http_null_variable
};

static ngx_str_t  ngx_http_demo_added = ngx_string("demo_added");

static ngx_int_t
ngx_http_demo_add_variables(ngx_conf_t *cf)
{
    var = ngx_http_add_variable(cf, &ngx_http_demo_added, 0);
    return NGX_OK;
}

static char *
ngx_http_demo_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child)
{
    ngx_conf_merge_value(conf->enable, prev->enable, 0);
    ngx_conf_merge_msec_value(conf->timeout, prev->timeout, 90000);
    ngx_conf_merge_size_value(conf->buffer_size, prev->buffer_size,
                              (size_t) ngx_pagesize);
    ngx_conf_merge_bufs_value(conf->bufs, prev->bufs, 8, NGX_DEMO_CHUNK);
    ngx_conf_merge_size_value(conf->busy_size, prev->busy_size,
                              NGX_DEMO_BUSY);
    ngx_conf_merge_uint_value(conf->mode, prev->mode, NGX_DEMO_ON);
    return NGX_CONF_OK;
}

static char *
ngx_http_demo_zone(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    if (dmcf->zone) {
        return "is duplicate";
    }
    return NGX_CONF_OK;
}

static char *
ngx_http_demo_rule(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    if (dlcf->off) {
        return "is duplicate";
    }
    rule = ngx_array_push(dlcf->rules);
    return NGX_CONF_OK;
}
