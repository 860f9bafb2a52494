//! One model call's whole preparation: [`Engine::before_call`], then every
//! request it made answered through the [`Driver`], and again while a
//! round leaves the engine wanting more (a compaction that finished can
//! leave the count over a line another tier handles). [`prepare`] is it,
//! synchronous; [`Preparation`] is the same logic one step at a time, for
//! hosts that answer asynchronously (the JS package's `prepare(host)`).
//!
//! A compaction that ends without compacting (a blocking PreCompact hook,
//! the whole fallback chain failed) ends the preparation on that round's
//! decision: running the cascade again would only start it again, and ask
//! the hook again.

use super::decision::Decision;
use super::driver::{DriveError, Driver, Host};
use super::request::{Answer, Request};
use super::Engine;
use crate::compact::{Compacted, Progress};
use crate::error::Error;
use crate::step::Step;
use crate::time::Timestamp;

/// Rounds of "decide, answer" a preparation runs at most (each round
/// answers every request pending; more than a few means the engine keeps
/// asking); the call then goes ahead on the last decision.
pub const MAX_ROUNDS: usize = 8;

/// What a preparation ends with.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The last round's decision, holding every step of the preparation in
    /// order (each round's decision, then its answers) and where the
    /// compaction ended; send the view after it.
    pub decision: Decision,
    /// Every compaction finished on the way, in order: a host that persists
    /// the session writes each one's records.
    pub compacted: Vec<Compacted>,
}

/// Why [`prepare`] stopped before the call was ready, with the compactions
/// it finished before that: their new views are in force, so a host that
/// persists the session writes their records even though it stopped.
#[derive(Debug)]
pub struct Unprepared<E> {
    /// What stopped it: the host's error or an answer the engine refused.
    pub error: DriveError<E>,
    /// Every compaction finished before the error, in order.
    pub compacted: Vec<Compacted>,
}

impl<E: std::fmt::Display> std::fmt::Display for Unprepared<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl<E: std::error::Error + 'static> std::error::Error for Unprepared<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.error)
    }
}

/// [`prepare`] one step at a time: ask [`Preparation::next`] for a request,
/// put it to the host, and give back [`Preparation::answered`] or
/// [`Preparation::host_failed`], until `next` says `None`; then
/// [`Preparation::finish`].
#[derive(Debug)]
pub struct Preparation {
    now: Option<Timestamp>,
    precompute: bool,
    rounds: usize,
    steps: Vec<Step>,
    /// Where the compaction the answers moved ended, last.
    answered: Option<Progress>,
    compacted: Vec<Compacted>,
    /// The round in progress: its decision, and the driver answering it.
    round: Option<(Decision, Driver)>,
    /// The decision the preparation ended on, and whether a compaction
    /// ending without compacting ended it.
    done: Option<(Decision, bool)>,
}

impl Preparation {
    /// A preparation at `now`; `precompute`: answer the background
    /// precompute request too.
    pub fn new(now: Option<Timestamp>, precompute: bool) -> Preparation {
        Preparation {
            now,
            precompute,
            rounds: 0,
            steps: Vec::new(),
            answered: None,
            compacted: Vec::new(),
            round: None,
            done: None,
        }
    }

    /// The next request to put to the host; `None` when the preparation is
    /// over (call [`Preparation::finish`]).
    pub fn next(&mut self, engine: &mut Engine) -> Option<Request> {
        loop {
            if self.done.is_some() {
                return None;
            }
            if let Some((_, driver)) = &self.round {
                if let Some(request) = driver.next(engine) {
                    return Some(request);
                }
                let (mut decision, driver) = self.round.take()?;
                let out = driver.finish(engine);
                self.steps.extend(out.steps);
                let settled = matches!(out.compaction, Some(Progress::Failed { .. }));
                if let Some(p) = out.compaction {
                    self.note(&p);
                    self.answered = Some(p);
                }
                if settled {
                    decision.requests = out.requests;
                    self.done = Some((decision, true));
                }
                continue;
            }
            let mut decision = engine.before_call(self.now.as_ref());
            self.rounds += 1;
            if let Some(p) = &decision.compaction {
                self.note(p);
            }
            let driver = Driver::new(self.precompute);
            if self.rounds > MAX_ROUNDS || driver.next(engine).is_none() {
                self.done = Some((decision, false));
                return None;
            }
            self.steps.append(&mut decision.steps);
            self.round = Some((decision, driver));
        }
    }

    /// Keeps a finished compaction's result for [`Prepared::compacted`].
    fn note(&mut self, progress: &Progress) {
        if let Progress::Compacted { result } = progress {
            self.compacted.push((**result).clone());
        }
    }

    /// The compactions finished so far, taken: a host that stops on an
    /// error still writes the records of those that finished before it
    /// (their new views are in force).
    pub fn take_compacted(&mut self) -> Vec<Compacted> {
        std::mem::take(&mut self.compacted)
    }

    /// The host answered request `id`.
    pub fn answered(&mut self, engine: &mut Engine, id: u64, answer: Answer) -> Result<(), Error> {
        match &mut self.round {
            Some((_, driver)) => driver.answered(engine, id, answer),
            None => Err(Error::UnknownRequest { id }),
        }
    }

    /// The host failed on `request` ([`Driver::host_failed`]): `Ok(true)`
    /// to go on, `Ok(false)` to stop and hand the host its error.
    pub fn host_failed(&mut self, engine: &mut Engine, request: &Request) -> Result<bool, Error> {
        match &mut self.round {
            Some((_, driver)) => driver.host_failed(engine, request),
            None => Ok(false),
        }
    }

    /// The decision the call goes ahead on, with every step taken.
    pub fn finish(mut self, engine: &mut Engine) -> Prepared {
        if self.done.is_none() && self.round.is_none() {
            // Never stepped: one round with nothing answered.
            let _ = self.next(engine);
        }
        let (mut decision, settled) = match (self.done, self.round) {
            (Some(done), _) => done,
            // Finished early (the host stopped): the round's decision.
            (None, Some((decision, _))) => (decision, true),
            (None, None) => (engine.before_call(self.now.as_ref()), false),
        };
        let mut steps = self.steps;
        if !settled {
            steps.append(&mut decision.steps);
        }
        decision.steps = steps;
        let own = decision.compaction.take();
        decision.compaction = match (self.answered, own) {
            // The last round started another compaction: it is what is pending.
            (Some(_), Some(Progress::Waiting)) if !settled => Some(Progress::Waiting),
            (Some(answered), _) => Some(answered),
            (None, own) => own,
        };
        Prepared {
            decision,
            compacted: self.compacted,
        }
    }
}

/// Prepares the next model call (see the module): `before_call` at `now`,
/// every request answered through `host`, repeated while the engine wants
/// more. A host error stops it at once ([`drive`](super::drive)'s rules);
/// the error carries the compactions finished before it.
pub fn prepare<H: Host>(
    engine: &mut Engine,
    host: &mut H,
    now: Option<Timestamp>,
) -> Result<Prepared, Unprepared<H::Error>> {
    let mut prep = Preparation::new(now, host.precompute());
    while let Some(request) = prep.next(engine) {
        let error = match super::driver::ask(host, &request) {
            Ok(answer) => match prep.answered(engine, request.id(), answer) {
                Ok(()) => continue,
                Err(e) => DriveError::Engine(e),
            },
            Err(cause) => match prep.host_failed(engine, &request) {
                Ok(true) => continue,
                Ok(false) => DriveError::Host {
                    request: request.id(),
                    kind: request.kind(),
                    cause,
                },
                Err(e) => DriveError::Engine(e),
            },
        };
        return Err(Unprepared {
            error,
            compacted: prep.take_compacted(),
        });
    }
    Ok(prep.finish(engine))
}
