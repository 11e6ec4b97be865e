import CCurl
import Foundation
import WarmerSupport

/// Drives one libcurl multi handle on a dedicated thread.
///
/// Every transfer of a `DataLoader` runs here: one thread waits in
/// `curl_multi_poll`, so thousands of concurrent downloads cost no threads of
/// Swift's cooperative pool, and all transfers share one connection pool
/// (keep-alive and HTTP/2 multiplexing) and one DNS cache. Other threads talk
/// to the loop only through its `ThreadInbox` of new transfers and
/// `curl_multi_wakeup` (`MultiHandle.wake`): the thread takes what is queued
/// on each turn rather than waiting in the inbox.
package final class CurlMultiLoop: Sendable {
    private let requests: ThreadInbox<CurlTransferRequest>
    private let multi: MultiHandle

    /// Connection limits applied to the multi handle.
    package struct Limits: Sendable {
        /// Concurrent connections to one host.
        package var maximumConnectionsPerHost: Int
        /// Concurrent connections in total (also the idle connections kept).
        package var maximumTotalConnections: Int

        /// Limits; see the properties.
        package init(maximumConnectionsPerHost: Int, maximumTotalConnections: Int) {
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.maximumTotalConnections = maximumTotalConnections
        }
    }

    /// Creates the multi handle and starts the curl thread.
    package init(limits: Limits) {
        CurlRuntime.ensureInitialised()
        let multi = MultiHandle(raw: curl_multi_init())
        let requests = ThreadInbox<CurlTransferRequest>()
        self.requests = requests
        self.multi = multi
        DedicatedThread.start(named: DedicatedThread.name("curl")) {
            let driver = Driver(requests: requests, multi: multi, limits: limits)
            driver.run()
        }
    }

    deinit {
        requests.close()
        multi.wake()
    }

    /// Starts a transfer. Its completion handler runs on the curl thread.
    package func submit(_ request: CurlTransferRequest) {
        guard multi.raw != nil else {
            request.onCompletion(.failure(CurlTransferFailure(.transport(code: -1, message: "libcurl could not create a multi handle"))))
            return
        }
        guard requests.post(request) != .refused else {
            request.onCompletion(.failure(CurlTransferFailure(.cancelled)))
            return
        }
        multi.wake()
    }

    /// Makes the loop look at cancellation flags now rather than on its next turn.
    package func wake() {
        multi.wake()
    }
}

extension CurlMultiLoop {
    /// The multi handle, as other threads see it: only to wake the curl thread.
    // @unchecked: `raw` is used off the curl thread only by `wake()`,
    // and curl_multi_wakeup is documented as callable from any thread.
    // Every other use of `raw` happens on the curl thread (Driver).
    final class MultiHandle: @unchecked Sendable {
        let raw: UnsafeMutableRawPointer?

        init(raw: UnsafeMutableRawPointer?) {
            self.raw = raw
        }

        /// Interrupts the curl thread's `curl_multi_poll`.
        func wake() {
            if let raw { _ = curl_multi_wakeup(raw) }
        }
    }

    /// The curl thread's side: owns the active transfers and the idle easy handles.
    private final class Driver {
        private let requests: ThreadInbox<CurlTransferRequest>
        private let multiHandle: MultiHandle
        private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        private var idleHandles: [CurlEasyHandle] = []
        private let maximumIdleHandles = 64
        /// The DNS cache and TLS sessions every transfer of the loop shares.
        private let share = CurlShare()

        init(requests: ThreadInbox<CurlTransferRequest>, multi: MultiHandle, limits: Limits) {
            self.requests = requests
            self.multiHandle = multi
            if let multi = multi.raw {
                _ = warmer_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maximumConnectionsPerHost)
                _ = warmer_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, limits.maximumTotalConnections)
                _ = warmer_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, limits.maximumTotalConnections)
                _ = warmer_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
            }
        }

        func run() {
            guard let multi = multiHandle.raw else { return }
            var running: Int32 = 0
            while !requests.isClosed {
                for request in requests.takeQueued() { start(request, on: multi) }
                abortCancelledTransfers(on: multi)
                _ = curl_multi_perform(multi, &running)
                collectFinishedTransfers(on: multi)
                // Sleeps until a socket is ready, a timeout is due, or curl_multi_wakeup.
                _ = curl_multi_poll(multi, nil, 0, 1000, nil)
            }
            for transfer in active.values {
                _ = curl_multi_remove_handle(multi, transfer.easy.raw)
                transfer.request.onCompletion(.failure(transfer.failure(.cancelled)))
            }
            for request in requests.takeQueued() { request.onCompletion(.failure(CurlTransferFailure(.cancelled))) }
            active.removeAll()
            idleHandles.removeAll()  // easy handles go before the share they use
            curl_multi_cleanup(multi)
        }

        private func start(_ request: CurlTransferRequest, on multi: UnsafeMutableRawPointer) {
            if request.cancellation.isCancelled {
                request.onCompletion(.failure(CurlTransferFailure(.cancelled)))
                return
            }
            guard let easy = idleHandles.popLast() ?? CurlEasyHandle() else {
                request.onCompletion(.failure(CurlTransferFailure(.transport(code: -1, message: "libcurl could not create a handle"))))
                return
            }
            let transfer = CurlTransfer(request: request, easy: easy)
            easy.configure(for: request, share: share, context: Unmanaged.passUnretained(transfer).toOpaque())
            active[easy.raw] = transfer
            let code = curl_multi_add_handle(multi, easy.raw)
            if code != CURLM_OK {
                active[easy.raw] = nil
                request.onCompletion(.failure(CurlTransferFailure(
                    .transport(code: Int(code.rawValue), message: String(cString: curl_multi_strerror(code))))))
            }
        }

        private func abortCancelledTransfers(on multi: UnsafeMutableRawPointer) {
            for (raw, transfer) in active where transfer.request.cancellation.isCancelled {
                finish(raw, on: multi, with: .failure(transfer.failure(.cancelled)))
            }
        }

        private func collectFinishedTransfers(on multi: UnsafeMutableRawPointer) {
            var remaining: Int32 = 0
            while let message = curl_multi_info_read(multi, &remaining) {
                guard message.pointee.msg == CURLMSG_DONE, let raw = message.pointee.easy_handle,
                      let transfer = active[raw] else { continue }
                finish(raw, on: multi, with: transfer.result(for: warmer_msg_result(message)))
            }
        }

        private func finish(
            _ raw: UnsafeMutableRawPointer, on multi: UnsafeMutableRawPointer,
            with result: Result<CurlTransferResponse, CurlTransferFailure>
        ) {
            guard let transfer = active.removeValue(forKey: raw) else { return }
            _ = curl_multi_remove_handle(multi, raw)
            if idleHandles.count < maximumIdleHandles { idleHandles.append(transfer.easy) }
            transfer.request.onCompletion(result)
        }
    }
}
