//! The panels' background work: a job in a thread of its own ([`Task`]),
//! and a thread that answers requests one at a time ([`Answerer`]).
//!
//! The UI thread never blocks: an analysis, a solve or an agent's game runs
//! in its own thread and talks to its panel through channels. The thread
//! wakes the UI with `request_repaint` when it reports progress and when it
//! is done, and the panel drains the channels each frame without waiting.
//! Every task holds a [`Cancel`] switch; dropping the task throws it, so
//! work no longer wanted stops at its next look.

use boaf_core::engine::limits::Cancel;
use crossbeam_channel::{Receiver, Sender, TryRecvError, bounded, unbounded};
use eframe::egui;

/// What a look at a background thread found.
#[derive(Debug, PartialEq)]
pub(super) enum Poll<T> {
    /// Still working (or, for an [`Answerer`], nothing asked).
    Pending,
    /// The answer.
    Done(T),
    /// The thread ended without an answer (it panicked).
    Stopped,
}

/// How a job reports its progress: each report is kept for the panel and
/// wakes the UI.
pub(super) struct Reporter<P> {
    tx: Sender<P>,
    ctx: egui::Context,
}

impl<P> Reporter<P> {
    /// Sends a report and wakes the UI; a report nobody reads is dropped.
    pub(super) fn report(&self, progress: P) {
        let _ = self.tx.send(progress);
        self.ctx.request_repaint();
    }
}

/// A job running in a thread of its own, with its answer, its latest
/// progress report and its cancel switch. Dropping it cancels the job.
pub(super) struct Task<T, P = ()> {
    result: Receiver<T>,
    progress: Receiver<P>,
    /// The latest report, if one came.
    latest: Option<P>,
    cancel: Cancel,
}

impl<T: Send + 'static, P: Send + 'static> Task<T, P> {
    /// Starts `job` in a thread; it gets the task's cancel switch and a
    /// reporter, and what it returns is the task's answer (which wakes the UI).
    pub(super) fn spawn(
        ctx: &egui::Context,
        job: impl FnOnce(Cancel, Reporter<P>) -> T + Send + 'static,
    ) -> Task<T, P> {
        let (tx, result) = bounded(1);
        // Unbounded: the job must never wait on the UI.
        let (progress_tx, progress) = unbounded();
        let cancel = Cancel::new();
        let reporter = Reporter {
            tx: progress_tx,
            ctx: ctx.clone(),
        };
        let ctx = ctx.clone();
        let switch = cancel.clone();
        std::thread::spawn(move || {
            // The task may be gone (no longer wanted): nothing to do then.
            let _ = tx.send(job(switch, reporter));
            ctx.request_repaint();
        });
        Task {
            result,
            progress,
            latest: None,
            cancel,
        }
    }
}

impl<T, P> Task<T, P> {
    /// Takes the progress reports and the answer that came, without waiting.
    /// The answer comes once: poll until it is done, then drop the task.
    pub(super) fn poll(&mut self) -> Poll<T> {
        if let Some(p) = self.progress.try_iter().last() {
            self.latest = Some(p);
        }
        match self.result.try_recv() {
            Ok(answer) => Poll::Done(answer),
            Err(TryRecvError::Empty) => Poll::Pending,
            Err(TryRecvError::Disconnected) => Poll::Stopped,
        }
    }

    /// The latest progress report taken by [`Task::poll`], if one came.
    pub(super) fn progress(&self) -> Option<&P> {
        self.latest.as_ref()
    }

    /// Throws the job's cancel switch; it stops at its next look.
    pub(super) fn cancel(&self) {
        self.cancel.cancel();
    }
}

impl<T, P> Drop for Task<T, P> {
    /// A job no longer wanted stops.
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// A thread that answers requests one at a time (an agent asked for its
/// moves one by one); dropping it ends the thread after the answer it is
/// working on.
pub(super) struct Answerer<Q, R> {
    ask: Sender<Q>,
    /// The answers come as the task's progress reports.
    task: Task<(), R>,
    /// Whether a request was sent and its answer has not come back.
    waiting: bool,
}

impl<Q: Send + 'static, R: Send + 'static> Answerer<Q, R> {
    /// Starts a thread that answers each request with `answer`, in order,
    /// until the answerer is dropped.
    pub(super) fn spawn(
        ctx: &egui::Context,
        mut answer: impl FnMut(Q) -> R + Send + 'static,
    ) -> Answerer<Q, R> {
        let (ask, asked) = unbounded::<Q>();
        let task = Task::spawn(ctx, move |cancel, replies| {
            // Ends when the asker drops its side.
            for request in asked.iter() {
                if cancel.is_cancelled() {
                    break;
                }
                replies.report(answer(request));
            }
        });
        Answerer {
            ask,
            task,
            waiting: false,
        }
    }
}

impl<Q, R> Answerer<Q, R> {
    /// Sends a request, unless one is still unanswered or the thread is
    /// gone; whether it was sent.
    pub(super) fn ask(&mut self, request: Q) -> bool {
        if self.waiting || self.ask.send(request).is_err() {
            return false;
        }
        self.waiting = true;
        true
    }

    /// Whether a request was sent and its answer has not been taken.
    pub(super) fn is_waiting(&self) -> bool {
        self.waiting
    }

    /// Takes the answer to the request sent, without waiting: `Pending`
    /// while it is worked on (or when nothing was asked), `Stopped` when
    /// the thread ended without answering.
    pub(super) fn poll(&mut self) -> Poll<R> {
        if !self.waiting {
            return Poll::Pending;
        }
        let ended = !matches!(self.task.poll(), Poll::Pending);
        match self.task.latest.take() {
            Some(answer) => {
                self.waiting = false;
                Poll::Done(answer)
            }
            None if ended => Poll::Stopped,
            None => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Polls until something other than `Pending` comes (or ten seconds pass).
    fn wait<T>(mut poll: impl FnMut() -> Poll<T>) -> Poll<T> {
        let start = Instant::now();
        loop {
            match poll() {
                Poll::Pending if start.elapsed() < Duration::from_secs(10) => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                other => return other,
            }
        }
    }

    #[test]
    fn a_task_answers_once_with_its_latest_progress() {
        let ctx = egui::Context::default();
        let mut task = Task::spawn(&ctx, |_, progress| {
            for p in 1..=3 {
                progress.report(p);
            }
            "done"
        });
        assert_eq!(wait(|| task.poll()), Poll::Done("done"));
        assert_eq!(task.progress(), Some(&3));
        // The answer came once; the thread is gone after it.
        assert_eq!(task.poll(), Poll::Stopped);
    }

    #[test]
    fn cancelling_or_dropping_a_task_throws_its_switch() {
        let ctx = egui::Context::default();
        let (seen_tx, seen) = bounded(1);
        let mut task: Task<bool> = Task::spawn(&ctx, move |cancel, _| {
            let _ = seen_tx.send(cancel.clone());
            while !cancel.is_cancelled() {
                std::thread::sleep(Duration::from_millis(1));
            }
            true
        });
        let switch = seen.recv().unwrap();
        assert_eq!(task.poll(), Poll::Pending);
        task.cancel();
        assert_eq!(wait(|| task.poll()), Poll::Done(true));

        let (seen_tx, seen) = bounded(1);
        let task: Task<()> = Task::spawn(&ctx, move |cancel, _| {
            let _ = seen_tx.send(cancel);
        });
        let other = seen.recv().unwrap();
        assert!(!other.is_cancelled() && switch.is_cancelled());
        drop(task);
        assert!(other.is_cancelled());
    }

    #[test]
    fn a_task_whose_thread_panics_is_stopped() {
        let ctx = egui::Context::default();
        let mut task: Task<u32> = Task::spawn(&ctx, |_, _| panic!("the job failed"));
        assert_eq!(wait(|| task.poll()), Poll::Stopped);
    }

    #[test]
    fn an_answerer_answers_one_request_at_a_time_in_order() {
        let ctx = egui::Context::default();
        let mut total = 0;
        let mut adder = Answerer::spawn(&ctx, move |n: u32| {
            total += n;
            total
        });
        assert_eq!(adder.poll(), Poll::Pending, "nothing asked");
        assert!(adder.ask(2));
        // One at a time: a second request waits for the first answer.
        assert!(!adder.ask(100) && adder.is_waiting());
        assert_eq!(wait(|| adder.poll()), Poll::Done(2));
        assert!(!adder.is_waiting());
        assert!(adder.ask(3));
        assert_eq!(wait(|| adder.poll()), Poll::Done(5));

        let mut broken = Answerer::spawn(&ctx, |()| -> u32 { panic!("no answer") });
        assert!(broken.ask(()));
        assert_eq!(wait(|| broken.poll()), Poll::Stopped);
    }
}
