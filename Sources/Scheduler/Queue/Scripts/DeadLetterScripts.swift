/// Runs dead-lettered jobs again, atomically per call (`retryDeadLetters` in
/// `controlLibrary`).
///
/// ARGV: how many to take when no ids are given (oldest first), job id…
///
/// Returns the number of entries retried.
let retryDeadScript = QueueScript(controlLibrary + #"""
local retried = retryDeadLetters(deadLetterIDs(), now())
return retried
"""#)

/// Deletes dead-lettered entries for good (`purgeDeadLetters` in
/// `controlLibrary`).
///
/// ARGV: how many to take when no ids are given (oldest first), job id…
/// Returns the number of entries deleted.
let purgeDeadScript = QueueScript(controlLibrary + #"""
local purged = purgeDeadLetters(deadLetterIDs())
return purged
"""#)
