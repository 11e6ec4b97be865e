// Non-variadic entry points into libcurl for Swift.
//
// Swift does not import C variadic functions, and curl_easy_setopt,
// curl_easy_getinfo, curl_multi_setopt and curl_share_setopt are all variadic.
// Each wrapper below fixes the type of the third argument. Only
// Sources/CurlKit uses this module.
#ifndef WARMER_CCURL_SHIM_H
#define WARMER_CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*warmer_curl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
typedef int (*warmer_curl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                             curl_off_t ultotal, curl_off_t ulnow);
typedef curl_socket_t (*warmer_curl_opensocket_callback)(void *userdata, curlsocktype purpose,
                                                         struct curl_sockaddr *address);

static inline CURLcode warmer_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode warmer_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode warmer_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode warmer_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode warmer_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode warmer_easy_setopt_share(CURL *h, CURLSH *v) { return curl_easy_setopt(h, CURLOPT_SHARE, v); }
static inline CURLcode warmer_easy_setopt_data_callback(CURL *h, CURLoption o, warmer_curl_data_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode warmer_easy_setopt_opensocket_callback(CURL *h, warmer_curl_opensocket_callback v) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, v); }
static inline CURLcode warmer_easy_setopt_xferinfo_callback(CURL *h, warmer_curl_xferinfo_callback v) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v); }

static inline CURLcode warmer_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode warmer_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode warmer_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode warmer_easy_getinfo_string(CURL *h, CURLINFO i, const char **v) { return curl_easy_getinfo(h, i, (char **)v); }

static inline CURLMcode warmer_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLSHcode warmer_share_setopt_long(CURLSH *s, CURLSHoption o, long v) { return curl_share_setopt(s, o, v); }

/// The result code of a finished transfer (CURLMsg keeps it in a union).
static inline CURLcode warmer_msg_result(const CURLMsg *msg) { return msg->data.result; }

#endif
