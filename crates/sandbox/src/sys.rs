//! Every `unsafe` call of the crate, behind safe functions: the budgeted
//! `ArrayBuffer` allocator the engine calls into, the process primitives of the
//! forking worker (`fork`, `waitpid`, `poll`, `_exit`, the parent-death signal),
//! and the OS limits of the second containment layer (`no_new_privs`, resource
//! limits, thread priority). The seccomp filter itself is built and installed
//! with the `seccompiler` crate's safe API (`harden.rs`).
#![allow(unsafe_code)]

use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use deno_core::v8;

// ---- the budgeted ArrayBuffer allocator ---------------------------------------

/// Byte budget shared by an isolate's `ArrayBuffer` allocator and the host.
#[derive(Debug, Default)]
pub(crate) struct ArrayBufferBudget {
    used: AtomicUsize,
    cap: AtomicUsize,
    /// Allocations refused for want of budget: the host's own signal that a
    /// job ran out of buffer memory (a script cannot raise it).
    refused: AtomicUsize,
}

impl ArrayBufferBudget {
    pub(crate) fn new(cap: usize) -> Arc<Self> {
        Arc::new(ArrayBufferBudget {
            used: AtomicUsize::new(0),
            cap: AtomicUsize::new(cap),
            refused: AtomicUsize::new(0),
        })
    }

    /// Changes the cap (per job); bytes already allocated stay counted.
    pub(crate) fn set_cap(&self, cap: usize) {
        self.cap.store(cap, Ordering::Relaxed);
    }

    pub(crate) fn reserve(&self, len: usize) -> bool {
        let cap = self.cap.load(Ordering::Relaxed);
        let granted = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(len).filter(|&n| n <= cap)
            })
            .is_ok();
        // A request larger than the whole budget never met memory pressure
        // (`new ArrayBuffer(2 ** 40)`): refused, but not counted as running out.
        if !granted && len <= cap {
            self.refused.fetch_add(1, Ordering::Relaxed);
        }
        granted
    }

    /// Allocations refused so far.
    pub(crate) fn refusals(&self) -> usize {
        self.refused.load(Ordering::Relaxed)
    }

    pub(crate) fn release(&self, len: usize) {
        self.used.fetch_sub(len, Ordering::AcqRel);
    }
}

const ALIGN: usize = 16;

fn layout(len: usize) -> Option<Layout> {
    Layout::from_size_align(len, ALIGN).ok()
}

/// A non-null, aligned, never-dereferenced pointer for empty buffers.
fn empty() -> *mut c_void {
    ALIGN as *mut c_void
}

/// Bytes of `ArrayBuffer` stores the budgeted allocators of this process hold
/// (allocated and not yet freed), across every isolate.
static HELD: AtomicUsize = AtomicUsize::new(0);

/// Bytes of `ArrayBuffer` stores that the sandbox's budgeted allocators of this
/// process hold now, over every isolate: 0 once every isolate is gone, unless the
/// engine lost a store (the leak class of `docs/engine-patches.md`).
pub fn array_buffer_bytes_held() -> usize {
    HELD.load(Ordering::SeqCst)
}

/// Reserves `len` bytes of the budget and allocates them with `raw`.
fn budgeted(
    handle: &ArrayBufferBudget,
    len: usize,
    raw: unsafe fn(Layout) -> *mut u8,
) -> *mut c_void {
    if len == 0 {
        return empty();
    }
    let Some(layout) = layout(len) else {
        return std::ptr::null_mut();
    };
    if !handle.reserve(len) {
        return std::ptr::null_mut();
    }
    // SAFETY: `layout` has a non-zero size (checked above).
    let p = unsafe { raw(layout) };
    if p.is_null() {
        handle.release(len);
    } else {
        HELD.fetch_add(len, Ordering::SeqCst);
    }
    p.cast()
}

unsafe extern "C" fn allocate(handle: &ArrayBufferBudget, len: usize) -> *mut c_void {
    budgeted(handle, len, alloc_zeroed)
}

unsafe extern "C" fn allocate_uninitialized(handle: &ArrayBufferBudget, len: usize) -> *mut c_void {
    budgeted(handle, len, alloc)
}

unsafe extern "C" fn free(handle: &ArrayBufferBudget, data: *mut c_void, len: usize) {
    if len == 0 || data.is_null() || data == empty() {
        return;
    }
    if let Some(layout) = layout(len) {
        // SAFETY: the engine passes back a pointer we returned from
        // `allocate*` with the same length, so the layout matches.
        unsafe { dealloc(data.cast(), layout) };
        handle.release(len);
        HELD.fetch_sub(len, Ordering::SeqCst);
    }
}

unsafe extern "C" fn drop(handle: *const ArrayBufferBudget) {
    // SAFETY: `handle` came from `Arc::into_raw` in `new` and the engine
    // calls `drop` exactly once, when the allocator is destroyed.
    unsafe { std::mem::drop(Arc::from_raw(handle)) };
}

static VTABLE: v8::RustAllocatorVtable<ArrayBufferBudget> = v8::RustAllocatorVtable {
    allocate,
    allocate_uninitialized,
    free,
    drop,
};

// ---- entropy for Math.random -----------------------------------------------------

/// Bytes drawn from the OS at a time for [`fill_random`].
const ENTROPY_POOL: usize = 4096;

/// A thread's bytes from the OS, and how many of them were handed out.
struct EntropyPool {
    used: usize,
    bytes: [u8; ENTROPY_POOL],
}

thread_local! {
    static ENTROPY: std::cell::RefCell<EntropyPool> = const {
        std::cell::RefCell::new(EntropyPool { used: ENTROPY_POOL, bytes: [0; ENTROPY_POOL] })
    };
}

/// Starts a new job's random stream on this thread (the job's isolate runs
/// here): the bytes left from before are thrown away, so the next
/// [`fill_random`] draws fresh ones from the OS. Called in the forked job
/// process too, after the fork: a copy of its worker's bytes is never used.
pub(crate) fn new_random_stream() {
    ENTROPY.with(|pool| {
        let mut pool = pool.borrow_mut();
        pool.bytes.fill(0);
        pool.used = ENTROPY_POOL;
    });
}

/// Fills `buf` with bytes from the OS (`getrandom`), drawn 4 KiB at a time and
/// never shared: a job's start throws away what is left ([`new_random_stream`]),
/// so a forked job process (a copy of its worker's memory) and a later job of an
/// in-process worker draw their own. The engine's `Math.random` reads it (the
/// entropy source `engine::configure_process` sets), so no random state exists
/// for a fork to copy. Should the OS give nothing (no `getrandom`), the bytes
/// come from a generator seeded with the clock: never a constant.
pub(crate) fn fill_random(buf: &mut [u8]) -> bool {
    ENTROPY.with(|pool| {
        let mut pool = pool.borrow_mut();
        let mut filled = 0;
        while filled < buf.len() {
            if pool.used == ENTROPY_POOL {
                if !os_random(&mut pool.bytes) {
                    weak_random(&mut pool.bytes);
                }
                pool.used = 0;
            }
            let n = (buf.len() - filled).min(ENTROPY_POOL - pool.used);
            let from = pool.used;
            buf[filled..filled + n].copy_from_slice(&pool.bytes[from..from + n]);
            // Bytes handed out are not kept.
            pool.bytes[from..from + n].fill(0);
            pool.used += n;
            filled += n;
        }
        true
    })
}

/// SplitMix64 over the clock and the buffer's address: what [`fill_random`]
/// falls back on when the OS has no random source.
fn weak_random(buf: &mut [u8]) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut state = nanos ^ (buf.as_ptr() as u64);
    for chunk in buf.chunks_mut(8) {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
    }
}

/// Fills `buf` from the OS's random source.
fn os_random(buf: &mut [u8]) -> bool {
    #[cfg(target_os = "linux")]
    {
        let mut filled = 0;
        while filled < buf.len() {
            let rest = &mut buf[filled..];
            // SAFETY: writes at most `rest.len()` bytes into `rest`.
            let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
            if n < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return false;
            }
            filled += n as usize;
        }
        true
    }
    #[cfg(not(target_os = "linux"))]
    {
        use std::io::Read;
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(buf))
            .is_ok()
    }
}

// ---- a test build's heap canary ---------------------------------------------------

/// Writes one byte past the end of a fresh heap block and frees it: a heap
/// overflow of the kind the engine bugs of `docs/engine-patches.md` made.
/// glibc finds it only with its heap checking on (`MALLOC_CHECK_=3` and
/// `libc_malloc_debug.so` preloaded: the process aborts on the free); without
/// it the write lands in the block's padding unseen. A double free would be a
/// poor canary: glibc's tcache catches one with the checking off. Test builds
/// only (the worker's `heap-canary` self-test).
#[cfg(debug_assertions)]
pub(crate) fn heap_canary() -> bool {
    // SAFETY: deliberately out of bounds of what was asked, but inside the
    // block glibc gives (20 bytes asked: a 32-byte chunk with 24 usable), so
    // without the checking nothing else is touched; with it, the byte is the
    // magic the checking placed after the block, verified on the free.
    unsafe {
        let p = libc::malloc(20).cast::<u8>();
        if p.is_null() {
            return false;
        }
        // Changed, whatever it was: the checking's magic byte depends on the
        // block's address, so a fixed value would match it now and then.
        let byte = std::ptr::read_volatile(p.add(20));
        std::ptr::write_volatile(p.add(20), !byte);
        libc::free(p.cast());
    }
    true
}

/// Refuses every wasm compilation (the `WebAssembly` global is deleted
/// by the scrub script as well).
pub(crate) unsafe extern "C" fn deny_wasm_codegen(
    _context: v8::Local<v8::Context>,
    _source: v8::Local<v8::String>,
) -> bool {
    false
}

pub(crate) fn budget_allocator(budget: Arc<ArrayBufferBudget>) -> v8::UniqueRef<v8::Allocator> {
    // SAFETY: the handle is a leaked `Arc` that stays valid until the
    // vtable's `drop` releases it; all vtable functions are sound for
    // any length the engine passes.
    unsafe { v8::new_rust_allocator(Arc::into_raw(budget), &VTABLE) }
}

// ---- processes (Linux) ----------------------------------------------------------

/// The two sides of a [`fork`].
#[cfg(target_os = "linux")]
pub(crate) enum Forked {
    /// In the new process.
    Child,
    /// In the caller, with the child's pid.
    Parent(libc::pid_t),
}

/// Number of threads of this process (`usize::MAX` when unknown).
#[cfg(target_os = "linux")]
pub(crate) fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(usize::MAX, |d| d.count())
}

/// Proof that this process had a single thread when it was made; not `Send`,
/// so it stays on that thread. The holder promises to start no thread before
/// it forks (the zygote never does).
#[cfg(target_os = "linux")]
pub(crate) struct SingleThreaded(std::marker::PhantomData<*const ()>);

/// A [`SingleThreaded`] token when this process has exactly one thread (read
/// from `/proc`, so before the OS layer forbids opening files).
#[cfg(target_os = "linux")]
pub(crate) fn single_threaded() -> Option<SingleThreaded> {
    (threads() == 1).then_some(SingleThreaded(std::marker::PhantomData))
}

/// Forks this process, which has a single thread: a lock held by another
/// thread would stay locked forever in the child.
#[cfg(target_os = "linux")]
pub(crate) fn fork(_one: &SingleThreaded) -> std::io::Result<Forked> {
    // SAFETY: the process has one thread (the token's promise), so the child
    // inherits no lock held by another thread.
    match unsafe { libc::fork() } {
        0 => Ok(Forked::Child),
        pid if pid > 0 => Ok(Forked::Parent(pid)),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Waits for a child of this process and says how it ended: `None` for a
/// normal exit with status 0, else a description (`signal 31`, `exit status 3`).
#[cfg(target_os = "linux")]
pub(crate) fn wait_child(pid: libc::pid_t) -> Option<String> {
    let mut status = 0;
    // SAFETY: waits for our own child; `status` is a valid out pointer.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return Some("lost".to_owned());
        }
    }
    if libc::WIFSIGNALED(status) {
        Some(format!("signal {}", libc::WTERMSIG(status)))
    } else if libc::WEXITSTATUS(status) != 0 {
        Some(format!("exit status {}", libc::WEXITSTATUS(status)))
    } else {
        None
    }
}

/// Waits up to `ms` milliseconds for `fd` to be readable. `Ok(false)` on timeout.
#[cfg(target_os = "linux")]
pub(crate) fn poll_readable(fd: std::os::fd::BorrowedFd<'_>, ms: i32) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let mut pfd = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd for the duration of the call.
    match unsafe { libc::poll(&mut pfd, 1, ms) } {
        0 => Ok(false),
        n if n > 0 => Ok(true),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Waits up to `ms` milliseconds for `a` or `b` to be readable (or closed):
/// which of them are, `(false, false)` on timeout.
#[cfg(target_os = "linux")]
pub(crate) fn poll_either(
    a: std::os::fd::BorrowedFd<'_>,
    b: std::os::fd::BorrowedFd<'_>,
    ms: i32,
) -> std::io::Result<(bool, bool)> {
    use std::os::fd::AsRawFd;
    let pfd = |fd: i32| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let mut fds = [pfd(a.as_raw_fd()), pfd(b.as_raw_fd())];
    // SAFETY: two valid pollfds for the duration of the call.
    match unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) } {
        0 => Ok((false, false)),
        n if n > 0 => Ok((fds[0].revents != 0, fds[1].revents != 0)),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Makes this process die with SIGKILL when its parent dies; false (and the
/// caller should exit) when the parent is not `expected` any more.
#[cfg(target_os = "linux")]
pub(crate) fn die_with_parent(expected: u32) -> bool {
    // SAFETY: plain syscalls without pointers.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        libc::getppid() as u32 == expected
    }
}

/// Sets up `cmd` so the worker process it starts cannot outlive this host: it
/// leads a process group of its own (the host stops it and every process it
/// forked with one signal, [`kill_group`]), the kernel sends it SIGKILL when
/// the thread that started it ends (with the host, whatever ends it: SIGKILL
/// included), and it never runs at all when the host died before the tie was
/// made (its parent is then not the host any more).
///
/// The parent-death signal follows the starting *thread*: start workers from
/// threads that live at least as long as the worker (the pool's drivers do).
#[cfg(target_os = "linux")]
pub(crate) fn tie_to_host(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let host = std::process::id() as libc::pid_t;
    cmd.process_group(0);
    // SAFETY: the closure runs in the child between fork and exec; it makes
    // only async-signal-safe calls (prctl, getppid) and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != host {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        });
    }
}

/// Sends SIGKILL to every process of the process group `group` (a worker that
/// [`tie_to_host`] made a group leader, and whatever it forked). Refuses the
/// ids that mean something else to `kill` (0: our own group; 1: everything).
#[cfg(target_os = "linux")]
pub(crate) fn kill_group(group: u32) -> bool {
    let Ok(id) = libc::pid_t::try_from(group) else {
        return false;
    };
    if id <= 1 {
        return false;
    }
    // SAFETY: a plain syscall; a negative id names the process group.
    unsafe { libc::kill(-id, libc::SIGKILL) == 0 }
}

/// Ends this process at once, without running destructors or exit handlers
/// (a forked child's engine state is a copy that must never be torn down).
#[cfg(unix)]
pub(crate) fn exit_now(code: i32) -> ! {
    // SAFETY: `_exit` never returns and touches no Rust state.
    unsafe { libc::_exit(code) }
}

// ---- the second layer: privileges, limits, priority ------------------------------

/// The calling thread's kernel id.
#[cfg(target_os = "linux")]
pub(crate) fn thread_id() -> i32 {
    // SAFETY: no arguments, cannot fail.
    unsafe { libc::gettid() }
}

/// Lowers a thread of this process to the lowest scheduling priority (nice 19).
#[cfg(target_os = "linux")]
pub(crate) fn lower_priority(tid: i32) -> bool {
    // SAFETY: plain syscall; on Linux PRIO_PROCESS with a thread id applies to that thread.
    unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19) == 0 }
}

/// Sets `no_new_privs`: no exec can ever gain privileges (setuid, file caps).
#[cfg(target_os = "linux")]
pub(crate) fn no_new_privs() -> std::io::Result<()> {
    // SAFETY: plain syscall without pointers.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// A resource limit of this process.
#[cfg(target_os = "linux")]
#[derive(Debug, Clone, Copy)]
pub(crate) enum Rlimit {
    /// Open file descriptors.
    Files,
    /// Data: heap, `brk` and private writable mappings (never address space).
    Data,
    /// Core dump size.
    Core,
}

#[cfg(target_os = "linux")]
impl Rlimit {
    fn resource(self) -> libc::__rlimit_resource_t {
        match self {
            Rlimit::Files => libc::RLIMIT_NOFILE,
            Rlimit::Data => libc::RLIMIT_DATA,
            Rlimit::Core => libc::RLIMIT_CORE,
        }
    }
}

/// Lowers a resource limit (soft and hard) to `value`, never raising it.
#[cfg(target_os = "linux")]
pub(crate) fn set_rlimit(which: Rlimit, value: u64) -> std::io::Result<()> {
    let current = get_rlimit(which)?;
    let value = value.min(current);
    let lim = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
    };
    // SAFETY: `lim` is a valid rlimit for the duration of the call.
    if unsafe { libc::setrlimit(which.resource(), &lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The hard limit of a resource (`u64::MAX` for unlimited).
#[cfg(target_os = "linux")]
pub(crate) fn get_rlimit(which: Rlimit) -> std::io::Result<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `lim` is a valid out pointer.
    if unsafe { libc::getrlimit(which.resource(), &mut lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(lim.rlim_max)
}

/// Self-tests of the second layer (`harden.rs`): each tries one thing the layer
/// forbids and returns what happened if the process survived.
#[cfg(target_os = "linux")]
pub(crate) fn forbidden_syscall(what: &str) -> Option<String> {
    use std::ffi::CString;
    // SAFETY: each call gets valid (or null, where allowed) pointers; none
    // touches Rust-owned memory beyond the arguments built here.
    let rc: i64 = unsafe {
        match what {
            "socket" => libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) as i64,
            "execve" => {
                let path = CString::new("/bin/true").ok()?;
                let argv = [path.as_ptr(), std::ptr::null()];
                let envp = [std::ptr::null()];
                libc::execve(path.as_ptr(), argv.as_ptr(), envp.as_ptr()) as i64
            }
            "open" => {
                let path = CString::new("/etc/hostname").ok()?;
                libc::open(path.as_ptr(), libc::O_RDONLY) as i64
            }
            "openat" => {
                let path = CString::new("/etc/hostname").ok()?;
                libc::openat(libc::AT_FDCWD, path.as_ptr(), libc::O_RDONLY) as i64
            }
            "ptrace" => libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) as i64,
            "unshare" => libc::unshare(libc::CLONE_NEWUSER) as i64,
            "connect" => libc::connect(-1, std::ptr::null(), 0) as i64,
            // Aimed at another process (`name:PID` or `name:parent`): signal 0
            // (no signal is sent, the target is checked), the limit on open
            // files lowered by one, the lowest priority.
            other => {
                let (name, pid) = other.split_once(':')?;
                let pid: libc::pid_t = match pid {
                    "parent" => libc::getppid(),
                    pid => pid.parse().ok()?,
                };
                match name {
                    "tgkill" => libc::syscall(libc::SYS_tgkill, pid, pid, 0),
                    "prlimit" => {
                        let mut old = libc::rlimit64 {
                            rlim_cur: 0,
                            rlim_max: 0,
                        };
                        if libc::prlimit64(pid, libc::RLIMIT_NOFILE, std::ptr::null(), &mut old)
                            != 0
                        {
                            return Some(format!("{what}: cannot read the limit"));
                        }
                        let new = libc::rlimit64 {
                            rlim_cur: old.rlim_cur.saturating_sub(1),
                            rlim_max: old.rlim_max,
                        };
                        libc::prlimit64(pid, libc::RLIMIT_NOFILE, &new, std::ptr::null_mut()) as i64
                    }
                    "setpriority" => {
                        libc::setpriority(libc::PRIO_PROCESS, pid as libc::id_t, 19) as i64
                    }
                    _ => return Some(format!("unknown self-test {what}")),
                }
            }
        }
    };
    Some(format!(
        "{what} returned {rc} ({})",
        std::io::Error::last_os_error()
    ))
}

// ---- the host's allocator --------------------------------------------------------

/// Gives the memory the C allocator keeps free (the free pages in every arena,
/// and the top of the main heap) back to the system: glibc's `malloc_trim(0)`.
/// The top of a thread's arena is not trimmed by it: see
/// [`bound_kept_memory`]. False where there is no such call or nothing was
/// returned. Costs a walk of the free lists (well
/// under a millisecond for a gateway's heap): call it after bursts, not per
/// allocation.
pub fn release_free_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim only walks and shrinks the allocator's own free
        // lists, under its own locks; it takes no pointer from us.
        unsafe { libc::malloc_trim(0) != 0 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// The largest free block at the top of a heap, and the smallest allocation
/// given its own mapping, under [`bound_kept_memory`].
pub const KEPT_MEMORY_BYTES: usize = 256 * 1024;

/// Fixes the C allocator's thresholds for a long-running process (call once,
/// at its start, before threads allocate). glibc otherwise raises both with
/// every large block freed, up to 32 MiB for mappings and 64 MiB for heap
/// tops, and `malloc_trim` never shrinks the top of a thread's arena: a
/// gateway whose short-lived threads (tokio's blocking pool) passed a few
/// megabyte-sized messages kept each burst's peak, megabytes per arena, for
/// good. With the thresholds fixed at [`KEPT_MEMORY_BYTES`], blocks that
/// large are mapped and unmapped on their own, and every heap gives back a
/// free top past it when a block is freed. This changes the whole process:
/// the gateway's command calls it; an embedder decides for its own process.
/// False where there is no such call or it was refused.
pub fn bound_kept_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let bytes = KEPT_MEMORY_BYTES as libc::c_int;
        // SAFETY: mallopt sets the allocator's own parameters under its lock;
        // it takes no pointer from us.
        unsafe {
            libc::mallopt(libc::M_TRIM_THRESHOLD, bytes) == 1
                && libc::mallopt(libc::M_MMAP_THRESHOLD, bytes) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}
