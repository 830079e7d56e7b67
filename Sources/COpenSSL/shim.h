#ifndef IMGCACHE_COPENSSL_SHIM_H
#define IMGCACHE_COPENSSL_SHIM_H
#include <openssl/evp.h>
#endif
