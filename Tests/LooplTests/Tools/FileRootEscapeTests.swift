import Foundation
import Loopl
import Synchronization
import Testing

/// The file tools never reach past their root: every attack below is tried against both ways of
/// resolving a path, the kernel's (`openat2`) and the walk used where the kernel lacks it.
@Suite struct FileRootEscapeTests {
    static let resolutions: [FileRoot.Resolution] = [.kernel, .walk]

    static func tools(_ fixture: FileRootFixture, _ resolution: FileRoot.Resolution) throws -> (ReadFileTool, ListFilesTool) {
        let root = try FileRoot(fixture.root, resolution: resolution)
        return (ReadFileTool(root: root), ListFilesTool(root: root))
    }

    /// Expects reading `path` to be refused as outside the root.
    static func expectOutside(_ read: ReadFileTool, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        let message = await FileRootFixture.refusal { try await read.call(["path": .string(path)]) }
        #expect(message?.contains("outside the tools' root") == true, "\(path): \(message ?? "was read")",
                sourceLocation: sourceLocation)
    }

    @Test(arguments: resolutions, [21, 22, 40])
    func aChainOfLinksOutIsRefused(_ resolution: FileRoot.Resolution, _ count: Int) async throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        let (read, list) = try Self.tools(fixture, resolution)
        await Self.expectOutside(read, try fixture.chain(count, to: fixture.secret))
        await Self.expectOutside(read, try fixture.chain(count, to: "/proc/self/environ", prefix: "environ"))
        let toSlash = try fixture.chain(count, to: "/", prefix: "slash")
        let listed = await FileRootFixture.refusal { try await list.call(["path": .string(toSlash)]) }
        #expect(listed?.contains("outside the tools' root") == true, "\(listed ?? "/ was listed")")
    }

    @Test(arguments: resolutions)
    func aChainInsideTheRootIsFollowed(_ resolution: FileRoot.Resolution) async throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        let (read, _) = try Self.tools(fixture, resolution)
        #expect(try await read.call(["path": .string(try fixture.chain(40, to: "sub/a.txt"))]) == "inside")
        let tooDeep = await FileRootFixture.refusal { try await read.call(["path": .string(try fixture.chain(41, to: "sub/a.txt", prefix: "deep"))]) }
        #expect(tooDeep?.contains("symbolic links") == true, "\(tooDeep ?? "41 links were followed")")
    }

    @Test(arguments: resolutions)
    func linksLongerThanPathMaxAreRefused(_ resolution: FileRoot.Resolution) async throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        let (read, list) = try Self.tools(fixture, resolution)
        // One link close to the kernel's 4095-byte cap; then two whose expansion passes PATH_MAX.
        try fixture.link("long", to: String(repeating: "./", count: 2030) + "../secret.txt")
        await Self.expectOutside(read, "long")
        try fixture.link("long-1", to: String(repeating: "sub/../", count: 580) + "long-2")
        try fixture.link("long-2", to: String(repeating: "./", count: 2030) + "../secret.txt")
        await Self.expectOutside(read, "long-1")
        try fixture.link("long-up", to: String(repeating: "./", count: 2040) + "..")
        let listed = await FileRootFixture.refusal { try await list.call(["path": "long-up"]) }
        #expect(listed?.contains("outside the tools' root") == true, "\(listed ?? "the root's parent was listed")")
    }

    @Test(arguments: resolutions)
    func procSelfThroughALinkIsRefused(_ resolution: FileRoot.Resolution) async throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        let (read, list) = try Self.tools(fixture, resolution)
        try fixture.link("self", to: "/proc/self")
        try fixture.link("environ", to: "/proc/self/environ")
        try fixture.link("rootlink", to: "/proc/self/root")
        for path in ["self/environ", "environ", "self/root/etc/passwd", "rootlink/etc/passwd", "self/cwd/x"] {
            await Self.expectOutside(read, path)
        }
        let listed = await FileRootFixture.refusal { try await list.call(["path": "rootlink"]) }
        #expect(listed?.contains("outside the tools' root") == true, "\(listed ?? "/ was listed")")
    }

    @Test(arguments: resolutions)
    func dotDotAndAbsolutePathsAreRefused(_ resolution: FileRoot.Resolution) async throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        let (read, list) = try Self.tools(fixture, resolution)
        for path in ["../secret.txt", "sub/../../secret.txt", "./sub/../../secret.txt", fixture.secret, "/proc/self/environ",
                     "/etc/passwd", "~/x"] {
            await Self.expectOutside(read, path)
        }
        for path in ["..", "/", "sub/../.."] {
            let listed = await FileRootFixture.refusal { try await list.call(["path": .string(path)]) }
            #expect(listed?.contains("outside the tools' root") == true, "\(path): \(listed ?? "was listed")")
        }
        #expect(try await read.call(["path": "sub/../sub/a.txt"]) == "inside")
    }

    /// A hard link is a directory entry inside the root: the file it names is the root's to read,
    /// wherever else it is linked from (the tools cannot tell, and the root's owner made it).
    /// Folders cannot be hard-linked, so no hard link leads to a tree outside the root.
    @Test(arguments: resolutions)
    func aHardLinkIsAFileInsideTheRoot(_ resolution: FileRoot.Resolution) async throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        let (read, _) = try Self.tools(fixture, resolution)
        guard link(fixture.secret, fixture.root + "/hard.txt") == 0 else {
            Issue.record("cannot hard-link in \(fixture.base): \(String(cString: strerror(errno)))")
            return
        }
        #expect(try await read.call(["path": "hard.txt"]) == "secret")
        #expect(link(fixture.base, fixture.root + "/hard-folder") != 0)
        #expect(errno == EPERM)
    }

    @Test(arguments: resolutions)
    func aFIFOIsRefusedWithoutBlocking(_ resolution: FileRoot.Resolution) async throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        let (read, list) = try Self.tools(fixture, resolution)
        #expect(mkfifo(fixture.root + "/fifo", 0o600) == 0)
        let started = ContinuousClock.now
        let message = await Self.within(.seconds(5)) { await FileRootFixture.refusal { try await read.call(["path": "fifo"]) } }
        #expect(message??.contains("not a regular file") == true, "\(String(describing: message))")
        #expect(ContinuousClock.now - started < .seconds(5))
        if message == nil { close(open(fixture.root + "/fifo", O_WRONLY | O_NONBLOCK)) }
        let listed = await FileRootFixture.refusal { try await list.call(["path": "fifo"]) }
        #expect(listed?.contains("not a folder") == true, "\(listed ?? "a FIFO was listed")")
        let folder = await FileRootFixture.refusal { try await read.call(["path": "sub"]) }
        #expect(folder?.contains("not a regular file") == true, "\(folder ?? "a folder was read")")
    }

    /// Opening is the check: a link planted where a file or a folder was is judged when it is opened.
    @Test(arguments: resolutions)
    func aLinkPlantedAtACheckedPathIsRefused(_ resolution: FileRoot.Resolution) async throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        let (read, list) = try Self.tools(fixture, resolution)
        #expect(try await read.call(["path": "sub/a.txt"]) == "inside")
        try FileManager.default.removeItem(atPath: fixture.root + "/sub/a.txt")
        try fixture.link("sub/a.txt", to: fixture.secret)
        await Self.expectOutside(read, "sub/a.txt")
        try FileManager.default.removeItem(atPath: fixture.root + "/sub")
        try fixture.link("sub", to: fixture.base)
        await Self.expectOutside(read, "sub/secret.txt")
        let listed = await FileRootFixture.refusal { try await list.call(["path": "sub"]) }
        #expect(listed?.contains("outside the tools' root") == true, "\(listed ?? "the root's parent was listed")")
    }

    /// The value of `body`, or nil when it takes longer than `limit` (it is then left running).
    static func within<T: Sendable>(_ limit: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
        let result = Mutex<T?>(nil)
        Task { let value = await body(); result.withLock { $0 = value } }
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let value = result.withLock({ $0 }) { return value }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }
}

extension FileRootEscapeTests {
    /// Kernels from 5.6 on have `openat2`: there the `.kernel` tests above test the kernel's rule.
    @Test func theKernelResolvesWhereItCan() {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let version = release.split(separator: ".").prefix(2).compactMap { Int($0.prefix { $0.isNumber }) }
        if version.count == 2, (version[0], version[1]) >= (5, 6) {
            #expect(FileRoot.kernelResolves, "Linux \(release) should have openat2")
        }
    }

    /// An absolute link that names a place beneath the root is followed, by both resolutions.
    @Test(arguments: resolutions)
    func anAbsoluteLinkBackInsideIsFollowed(_ resolution: FileRoot.Resolution) async throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        let (read, list) = try Self.tools(fixture, resolution)
        try fixture.link("in", to: fixture.root + "/sub")
        try fixture.link("sub/back", to: fixture.root)
        #expect(try await read.call(["path": "in/a.txt"]) == "inside")
        #expect(try await read.call(["path": "sub/back/in/back/sub/a.txt"]) == "inside")
        #expect(try await list.call(["path": "in"]) == "a.txt\nback/")
        await Self.expectOutside(read, "sub/back/../secret.txt")
        try fixture.link("sideways", to: fixture.root + "-other/x")
        await Self.expectOutside(read, "sideways")
    }

    @Test(arguments: resolutions)
    func aListingIsCut(_ resolution: FileRoot.Resolution) async throws {
        let fixture = try FileRootFixture()
        defer { fixture.remove() }
        let (_, list) = try Self.tools(fixture, resolution)
        for index in 0...ListFilesTool.limit {
            let fd = creat(fixture.root + "/sub/f\(index)", 0o600)
            #expect(fd >= 0)
            close(fd)
        }
        let lines = try await list.call(["path": "sub"]).split(separator: "\n")
        #expect(lines.count == ListFilesTool.limit + 1)
        #expect(lines.last == "[cut at \(ListFilesTool.limit) names]")
    }
}
