import Testing
@testable import Scheduler

/// The `@include` lines of the `.lua` files: each file names exactly the
/// libraries whose names its code uses, so that a library never relies on
/// the script that includes it to bring what it needs, and no script carries
/// a library it does not use (nor the keys that library names).
@Suite("Lua includes")
struct LuaIncludeTests {
    @Test func namesAreReadWithoutCommentsStringsOrFields() {
        let names = LuaSourceNames("""
        -- comment(hidden)
        local function f(job) return g(job.url, 'q(x)', "y\\"z") .. h end
        local A, B = 1, 2
          local inner = 3
        obj:method(k)
        """)
        #expect(names.defined == ["f", "A", "B"])
        #expect(names.used.isSuperset(of: ["f", "g", "h", "job", "obj", "k", "A", "B", "inner"]))
        #expect(names.used.isDisjoint(with: ["comment", "hidden", "url", "q", "x", "y", "z", "method"]))
    }

    @Test func everyFileIncludesExactlyTheLibrariesWhoseNamesItUses() throws {
        let definitions = try LuaSources.libraries().mapValues { LuaSourceNames($0.text).defined }
        for (name, file) in try LuaSources.all() {
            let names = LuaSourceNames(file.text)
            let foreign = names.used.subtracting(names.defined)
            let used = Set(definitions.filter { $0.key != name && !$0.value.isDisjoint(with: foreign) }.keys)
            #expect(Set(file.includes) == used, "\(name).lua includes \(file.includes.sorted()) but uses \(used.sorted())")
            #expect(file.includes.count == Set(file.includes).count, "\(name).lua includes a library twice")
        }
    }

    @Test func noTwoLibrariesDefineTheSameName() throws {
        var owners: [String: String] = [:]
        for (name, file) in try LuaSources.libraries() {
            for defined in LuaSourceNames(file.text).defined {
                if let other = owners.updateValue(name, forKey: defined) {
                    Issue.record("\(defined) is defined by both \(other).lua and \(name).lua")
                }
            }
        }
        #expect(!owners.isEmpty)
    }

    @Test func librariesIncludeEachOtherWithoutACycle() throws {
        let libraries = try LuaSources.libraries()
        // Depth-first: a library met again while its own includes are being walked closes a cycle.
        var done: Set<String> = [], walking: [String] = []
        func walk(_ name: String) {
            if done.contains(name) { return }
            if walking.contains(name) {
                Issue.record("include cycle: \((walking + [name]).joined(separator: " -> "))")
                return
            }
            walking.append(name)
            libraries[name]?.includes.forEach(walk)
            walking.removeLast()
            done.insert(name)
        }
        libraries.keys.sorted().forEach(walk)
        #expect(done == Set(libraries.keys))
    }
}
