import Foundation
@testable import RedisKit
import Testing
@testable import Scheduler

/// The `.lua` files themselves: every one is a transition, a script of the
/// worker registry or a library the Swift side knows, documents its
/// interface, declares exactly the keys its assembled code names, unpacks
/// its arguments at the top, and compiles.
@Suite("Queue script files")
struct QueueScriptFileTests {
    /// Every script run on its own: the queue's transitions and the worker registry's.
    static let scripts = QueueScripts.all + WorkerScripts.all

    @Test func everyLuaFileIsAScriptOrALibraryInItsFolder() throws {
        #expect(Set(try LuaSources.files(in: "Queue/Lua").keys) == Set(QueueScripts.all.map(\.name)))
        #expect(Set(try LuaSources.files(in: "Workers/Lua").keys) == Set(WorkerScripts.all.map(\.name)))
        #expect(Set(try LuaSources.libraries().keys) == Set(QueueScript.libraries.keys))
    }

    @Test func everyLuaFileIsCompiledInWithExactlyItsTextOnDisk() throws {
        // (EmbedTextPlugin writes each file as a raw string literal: a quote,
        // backslash or `#` in the Lua must come through unchanged.)
        let onDisk = try LuaSources.all()
        for (name, library) in QueueScript.libraries {
            #expect(library.text == onDisk[name]?.text, "includes/\(name).lua")
        }
        for script in Self.scripts {
            let text = try #require(onDisk[script.name]?.text)
            #expect(script.script.source.hasSuffix("\n" + text), "\(script.name).lua")
        }
    }

    @Test func aHeaderNamingAnUnknownKeyOrLibraryGivesAScriptThatRefusesInsteadOfACrash() {
        let file = LuaFile("broken", "-- @include nowhere\n-- @keys queue nokey\nreturn 1\n")
        let source = QueueScript(file).script.source
        #expect(source.contains("BROKEN_SCRIPT") && source.contains("unknown key nokey") && source.contains("unknown library nowhere"),
                "\(source)")
    }

    @Test(arguments: Self.scripts.map(\.name))
    func aScriptNamesOnlyKeysAndLibrariesThatExist(name: String) throws {
        let script = try #require(Self.scripts.first { $0.name == name })
        #expect(!script.script.source.contains("BROKEN_SCRIPT"), "\(script.script.source)")
    }

    @Test(arguments: Self.scripts.map(\.name))
    func aScriptDeclaresExactlyTheKeysItsCodeNames(name: String) throws {
        let script = try #require(Self.scripts.first { $0.name == name })
        let named = Set(script.script.source.matches(of: /\bK\.(\w+)/).map { String($0.output.1) })
        let declared = Set(script.keys.map(\.rawValue))
        #expect(named.isSubset(of: declared), "named but not declared: \(named.subtracting(declared).sorted())")
        // `queue` may be declared unnamed: the key Redis Cluster routes the call by.
        #expect(declared.subtracting(named).isSubset(of: ["queue"]), "declared but not named: \(declared.subtracting(named).sorted())")
        #expect(!script.keys.isEmpty, "a script without KEYS cannot be routed to its queue's slot")
        #expect(script.keys.count == declared.count, "a key is declared twice")
    }

    @Test(arguments: Self.scripts.map(\.name))
    func aScriptsHeaderDocumentsItsInterface(name: String) throws {
        let script = try #require(Self.scripts.first { $0.name == name })
        let file = try #require(script.script.source.components(separatedBy: "-- \(name).lua:").last)
        let header = file.split(separator: "\n").dropFirst().prefix { $0.hasPrefix("--") }.joined(separator: "\n")
        for part in ["@include", "KEYS", "@keys", "ARGV", "Returns", "Events"] {
            #expect(header.contains(part), "\(name).lua's header does not give \(part)")
        }
    }

    @Test func argumentsAreUnpackedIntoNamedLocalsNotIndexedInBodies() {
        for script in Self.scripts {
            #expect(!script.script.source.contains("ARGV[FIRST +"), "\(script.name).lua indexes ARGV[FIRST + n]")
        }
    }

    @Test func keysAreReadThroughTheKTableOnly() {
        for script in Self.scripts {
            // The `K` table's own line reads each declared key once.
            #expect(script.script.source.components(separatedBy: "KEYS[").count == script.keys.count + 1,
                    "\(script.name).lua reads KEYS[n] instead of K.<name>")
        }
    }

    @Test func aLibraryIsIncludedOnlyWhereItIsUsed() {
        let source = Dictionary(uniqueKeysWithValues: Self.scripts.map { ($0.name, $0.script.source) })
        #expect(source["release"]?.contains("-- work.lua") == false)
        #expect(source["renew"]?.contains("-- intake.lua") == false)
        #expect(source["enqueue"]?.contains("-- control.lua") == false)
        #expect(source["enqueue"]?.contains("-- ends.lua") == false)
        #expect(source["claim"]?.contains("-- control.lua") == false)
        #expect(source["control-document"]?.contains("-- documents.lua") == true)
        #expect(source["control-document"]?.contains("-- housekeeping.lua") == false)
        #expect(source["publish-while-leased"]?.contains("-- fairness.lua") == false)
        #expect(source["heartbeat"]?.contains("-- events.lua") == false)
        // Each library once, after the ones it includes.
        let claim = source["claim"] ?? ""
        #expect(claim.components(separatedBy: "-- context.lua:").count == 2)
        let order = ["-- context.lua:", "-- fairness.lua:", "-- ends.lua:", "-- jobs.lua:", "-- intake.lua:", "-- work.lua:", "-- claim.lua:"]
            .map { claim.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && order.compactMap { $0 } == order.compactMap { $0 }.sorted())
    }

    @Test func everyScriptCompilesInRedisUnderTheHashEVALSHASends() async throws {
        let harness = try QueueScriptHarness()
        for script in Self.scripts.map(\.script) {
            let sha = try await harness.send(["SCRIPT", "LOAD", script.source]).string
            #expect(sha == script.sha1)
        }
    }
}
