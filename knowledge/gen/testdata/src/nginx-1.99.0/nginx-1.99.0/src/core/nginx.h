/* A made-up source tree shaped like nginx's, for knowledge/gen's tests. */
#define NGINX_VERSION      "1.99.0"
