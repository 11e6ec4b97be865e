// hiredis for Swift. Warmer uses only the non-variadic API
// (redisCommandArgv, redisAppendCommandArgv + redisGetReply for pipelining).
// Only Sources/RedisKit uses this module.
#ifndef WARMER_CHIREDIS_SHIM_H
#define WARMER_CHIREDIS_SHIM_H

#include <hiredis/hiredis.h>

/// The context's error text (a fixed-size char array, which Swift imports as a tuple).
static inline const char *warmer_redis_errstr(const redisContext *c) { return c->errstr; }

#endif
