/// The queue's transitions, one `.lua` file each in `Queue/Lua/` (see
/// `QueueScript`; every file's header documents its KEYS, ARGV, reply and
/// events).
enum QueueScripts {
    /// Adds URLs to a batch as jobs (enqueue.lua).
    static let enqueue = QueueScript(LuaFile("enqueue", EmbeddedText.enqueue_lua))
    /// Enqueues one intake document sent over HTTP (submit.lua).
    static let submit = QueueScript(LuaFile("submit", EmbeddedText.submit_lua))
    /// Pushes the next URLs of a large document a client parsed to submit it (submit-push.lua).
    static let submitPush = QueueScript(LuaFile("submit-push", EmbeddedText.submit_push_lua))
    /// Pushes the next URLs of a large document a worker parses (parse-push.lua).
    static let parsePush = QueueScript(LuaFile("parse-push", EmbeddedText.parse_push_lua))
    /// Stages or dead-letters a large document a worker parsed (parse-end.lua).
    static let parseEnd = QueueScript(LuaFile("parse-end", EmbeddedText.parse_end_lua))
    /// Claims jobs for a worker (claim.lua).
    static let claim = QueueScript(LuaFile("claim", EmbeddedText.claim_lua))
    /// Ends a job and claims the worker's next ones (finish.lua).
    static let finish = QueueScript(LuaFile("finish", EmbeddedText.finish_lua))
    /// Gives a claimed job back (release.lua).
    static let release = QueueScript(LuaFile("release", EmbeddedText.release_lua))
    /// Extends a worker's leases and does the housekeeping (renew.lua).
    static let renew = QueueScript(LuaFile("renew", EmbeddedText.renew_lua))
    /// Publishes a worker's event of a job it holds (publish-while-leased.lua).
    static let publishWhileLeased = QueueScript(LuaFile("publish-while-leased", EmbeddedText.publish_while_leased_lua))
    /// Cancels a batch's jobs or single jobs (cancel.lua).
    static let cancel = QueueScript(LuaFile("cancel", EmbeddedText.cancel_lua))
    /// Changes the priority of a batch's jobs or of single jobs (priority.lua).
    static let priority = QueueScript(LuaFile("priority", EmbeddedText.priority_lua))
    /// Runs dead letters again (dead-retry.lua).
    static let retryDead = QueueScript(LuaFile("dead-retry", EmbeddedText.dead_retry_lua))
    /// Deletes dead letters (dead-purge.lua).
    static let purgeDead = QueueScript(LuaFile("dead-purge", EmbeddedText.dead_purge_lua))
    /// Sets a group's weight and in-flight limit (group.lua).
    static let group = QueueScript(LuaFile("group", EmbeddedText.group_lua))
    /// Applies one step of the control documents (control-document.lua).
    static let controlDocument = QueueScript(LuaFile("control-document", EmbeddedText.control_document_lua))
    /// Reserves a download's start under the fleet's rate limits (rate-permit.lua).
    static let ratePermit = QueueScript(LuaFile("rate-permit", EmbeddedText.rate_permit_lua))

    /// Every transition.
    static var all: [QueueScript] {
        [enqueue, submit, claim, finish, release, renew, publishWhileLeased, cancel, priority, retryDead, purgeDead, controlDocument,
         ratePermit, group, parsePush, parseEnd, submitPush]
    }
}
