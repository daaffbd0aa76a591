//! Advisory locks between writers of one file: two app windows, or the app
//! and `boaf generate`, appending to the same ratings file or puzzle store.
//!
//! The lock is the standard library's `File::lock` (`flock(2)` on Unix,
//! `LockFileEx` on Windows; fs4 1.x offers the same calls under the same
//! names). It belongs to the open file, so two handles in one process exclude
//! each other too, and the system lets go of it when its holder dies, even
//! by SIGKILL. Only writers take it: readers never wait. A writer that waits
//! longer than [`LOCK_WAIT`] gives up with an error that names the holder.

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// How long a writer waits for another's lock before it says who holds it.
/// A writer holds it for one record and its sync: milliseconds, or a second
/// or two on a slow disk.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// A file open for appending with an exclusive lock on it, let go when
/// dropped (closing the file lets go of its lock).
#[derive(Debug)]
pub struct Locked(File);

impl std::ops::Deref for Locked {
    type Target = File;
    fn deref(&self) -> &File {
        &self.0
    }
}

impl std::ops::DerefMut for Locked {
    fn deref_mut(&mut self) -> &mut File {
        &mut self.0
    }
}

/// Opens `path` for reading and appending (creating it when `create`) and
/// takes an exclusive lock on it, waiting up to `wait` for another writer
/// to let go; after that, an error (`WouldBlock`) that names the holder (see
/// [`holder`]). A file replaced while this waited is opened again: the lock
/// is always on the file the name leads to.
pub fn lock_path(path: &Path, create: bool, wait: Duration) -> io::Result<Locked> {
    loop {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(create)
            .open(path)?;
        let locked = lock_file(file, wait)?;
        match same_file(&locked, path) {
            Ok(true) => return Ok(locked),
            // Replaced, or removed by the holder (which may leave no file
            // when its first write failed): open it again.
            Ok(false) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
}

/// Takes an exclusive lock on `file`, waiting up to `wait`.
fn lock_file(file: File, wait: Duration) -> io::Result<Locked> {
    match file.try_lock() {
        Ok(()) => return Ok(Locked(file)),
        Err(TryLockError::Error(e)) => return Err(e),
        Err(TryLockError::WouldBlock) => {}
    }
    let who = Holder::of(&file);
    // The system has no timed wait: a thread waits with the file, and this
    // one waits for the thread with a bound. Polling instead would starve
    // against a writer that appends back to back.
    let abandoned = Arc::new(Mutex::new(false));
    let (tx, rx) = mpsc::channel();
    let gave_up = Arc::clone(&abandoned);
    // Builder: a thread that cannot start (an address-space limit) is an
    // error to report, not a panic.
    std::thread::Builder::new().spawn(move || {
        let got = file.lock().map(|()| file);
        let gave_up = gave_up.lock().unwrap_or_else(|e| e.into_inner());
        if !*gave_up {
            let _ = tx.send(got);
        }
        // Otherwise nobody waits for it any more: dropping the file lets go.
    })?;
    let got = rx.recv_timeout(wait).or_else(|_| {
        // Said under the thread's mutex, so the file is either handed over
        // here or closed there, never kept locked by nobody.
        *abandoned.lock().unwrap_or_else(|e| e.into_inner()) = true;
        rx.try_recv().map_err(|_| {
            io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "another writer ({}) has held its lock for over {} s; nothing was written",
                    who.name(),
                    wait.as_secs_f64()
                ),
            )
        })
    })?;
    got.map(Locked)
}

/// Whether `file` is still the file at `path`: a writer that waited for the
/// lock checks that nobody replaced the file meanwhile (a rename over it),
/// or it would write to a file no name leads to.
pub fn same_file(file: &File, path: &Path) -> io::Result<bool> {
    Ok(same_id(&file.metadata()?, &std::fs::metadata(path)?))
}

/// Whether two open files are one file.
pub fn same_open_file(a: &File, b: &File) -> io::Result<bool> {
    Ok(same_id(&a.metadata()?, &b.metadata()?))
}

/// Whether two files' metadata are of one file (always, where the system
/// gives no device and inode).
fn same_id(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        true
    }
}

/// Who holds a lock on a file, found by the file's device and inode
/// (Linux's `/proc/locks` lists each lock's holder, device and inode).
#[derive(Clone, Copy, Debug)]
pub struct Holder {
    /// The device as `/proc/locks` writes it (`fe:00`), and the inode.
    id: Option<(u32, u32, u64)>,
}

impl Holder {
    /// The holder of a lock on `file`.
    pub fn of(file: &File) -> Holder {
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            file.metadata().ok().map(|m| {
                // Linux's split of a device number into major and minor.
                let dev = m.dev();
                let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
                let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
                (major as u32, minor as u32, m.ino())
            })
        };
        #[cfg(not(unix))]
        let id = {
            let _ = file;
            None
        };
        Holder { id }
    }

    /// The holder now, as `pid 123: boaf generate -n 8`, or "another
    /// process" where the system does not say.
    pub fn name(&self) -> String {
        let Some(pid) = self.pid() else {
            return "another process".into();
        };
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let mut words = cmdline
            .split(|&b| b == 0)
            .filter(|w| !w.is_empty())
            .map(|w| String::from_utf8_lossy(w).into_owned());
        let Some(program) = words.next() else {
            return format!("pid {pid}");
        };
        // The program by its name, then its arguments, shortened.
        let name = Path::new(&program)
            .file_name()
            .map_or(program.clone(), |n| n.to_string_lossy().into_owned());
        let said = std::iter::once(name)
            .chain(words)
            .collect::<Vec<_>>()
            .join(" ");
        let short: String = said.chars().take(80).collect();
        let more = if short.len() < said.len() { "…" } else { "" };
        format!("pid {pid}: {short}{more}")
    }

    /// The process that holds the lock, from `/proc/locks`.
    fn pid(&self) -> Option<u32> {
        let id = self.id?;
        let locks = std::fs::read_to_string("/proc/locks").ok()?;
        locks.lines().find_map(|line| holder_pid(line, id))
    }
}

/// The pid in one line of `/proc/locks` when it is a held lock (not a
/// waiter's) on the file `(major, minor, inode)`: "1: FLOCK  ADVISORY  WRITE
/// 2552 fe:00:10012618 0 EOF", where a waiter's line has "->" after the number.
fn holder_pid(line: &str, id: (u32, u32, u64)) -> Option<u32> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.get(1) == Some(&"->") {
        return None;
    }
    let mut at = words.get(5)?.split(':');
    let major = u32::from_str_radix(at.next()?, 16).ok()?;
    let minor = u32::from_str_radix(at.next()?, 16).ok()?;
    let ino = at.next()?.parse::<u64>().ok()?;
    (at.next().is_none() && (major, minor, ino) == id)
        .then(|| words.get(4)?.parse().ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_holder_is_found_by_device_and_inode() {
        let line = "1: FLOCK  ADVISORY  WRITE 2552 fe:01:10012618 0 EOF";
        assert_eq!(holder_pid(line, (0xfe, 1, 10012618)), Some(2552));
        // The same inode on another device, or a waiter, is not the holder.
        assert_eq!(holder_pid(line, (0xfe, 0, 10012618)), None);
        assert_eq!(holder_pid(line, (0xfe, 1, 10012619)), None);
        let waiter = "1: -> FLOCK  ADVISORY  WRITE 2553 fe:01:10012618 0 EOF";
        assert_eq!(holder_pid(waiter, (0xfe, 1, 10012618)), None);
    }

    #[test]
    fn a_second_writer_waits_then_names_the_holder() {
        let dir = crate::temp::TempDir::new("lock");
        let path = dir.join("f.txt");
        let first = lock_path(&path, true, LOCK_WAIT).unwrap();
        let err = lock_path(&path, false, Duration::from_millis(200)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        let text = err.to_string();
        if cfg!(target_os = "linux") {
            let me = format!("another writer (pid {}: ", std::process::id());
            assert!(text.starts_with(&me), "{text}");
        }
        assert!(text.contains("for over 0.2 s"), "{text}");
        // Let go: the next takes it at once, though the thread that gave up
        // may still wait; that one closes its file when it gets the lock.
        drop(first);
        let second = lock_path(&path, false, Duration::from_secs(2)).unwrap();
        std::thread::scope(|s| {
            s.spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                drop(second);
            });
            // Handed over when the holder lets go, well within the bound.
            let started = std::time::Instant::now();
            drop(lock_path(&path, false, LOCK_WAIT).unwrap());
            assert!(started.elapsed() < Duration::from_secs(2));
        });
        // A file replaced under a waiter: the lock is taken on the new one.
        let old = lock_path(&path, false, LOCK_WAIT).unwrap();
        assert!(same_file(&old, &path).unwrap());
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(50));
                std::fs::write(dir.join("g.txt"), b"new").unwrap();
                std::fs::rename(dir.join("g.txt"), &path).unwrap();
                drop(old);
            });
            let new = lock_path(&path, false, LOCK_WAIT).unwrap();
            assert!(same_file(&new, &path).unwrap());
        });
    }
}
