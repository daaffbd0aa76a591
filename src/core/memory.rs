//! Memory the allocator keeps after it is freed.

/// Gives the whole free pages the allocator keeps back to the system.
///
/// glibc keeps a thread's freed analysis tables in its arena for reuse.
/// Called between two candidates, where one's tables are freed and the
/// next's not yet made; not within a search, where the reuse saves the
/// page faults of fresh memory. (It does not shrink a worker arena's free
/// top: the binary bounds that at start-up, see `main.rs`.)
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages; it takes the arenas'
    // locks itself and is safe to call from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}
