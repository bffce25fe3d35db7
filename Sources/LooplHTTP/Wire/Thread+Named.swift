import Foundation
import Glibc

extension Thread {
    /// Runs `body` on a new thread that /proc, `top -H` and debuggers show as `name` (its first 15
    /// bytes: Linux keeps no longer names). Named from inside the thread, through
    /// /proc/thread-self/comm: on Linux a name given before `start()`, or through `Thread.name`, is
    /// not applied, and the Glibc module does not export `pthread_setname_np`.
    static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            nameCurrentThread(name)
            body()
        }
        thread.start()
    }

    /// Gives the calling thread the kernel name `name`.
    private static func nameCurrentThread(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
