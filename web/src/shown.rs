//! The event a panel draws, shared rather than copied: a moment carries
//! both views of its event, its requests and its summary's lines (hundreds
//! of items with 200 more groups), and every panel that draws it gets it
//! as props. Cloning a [`Shown`] copies a pointer, and two compare equal
//! when they are the same event of the same engine run, so a render that
//! changes something else neither copies nor compares the event item by
//! item.

use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

use compaction_scenarios::sandbox::{Exploration, Moment};
use yew::prelude::*;

/// One moment of an engine run.
#[derive(Clone)]
pub struct Shown(At);

#[derive(Clone)]
enum At {
    /// The `usize`-th moment of a run.
    Run(Rc<Exploration>, usize),
    /// A moment on its own.
    Alone(Rc<Moment>),
}

impl Shown {
    /// The `at`-th moment of `run`, if it has one.
    pub fn of(run: &Rc<Exploration>, at: usize) -> Option<Shown> {
        (at < run.moments.len()).then(|| Shown(At::Run(run.clone(), at)))
    }
}

impl From<Moment> for Shown {
    fn from(m: Moment) -> Shown {
        Shown(At::Alone(Rc::new(m)))
    }
}

impl Deref for Shown {
    type Target = Moment;

    fn deref(&self) -> &Moment {
        match &self.0 {
            // In range: `of` checked it, and a run never changes.
            At::Run(run, at) => &run.moments[*at],
            At::Alone(m) => m,
        }
    }
}

impl PartialEq for Shown {
    fn eq(&self, other: &Shown) -> bool {
        match (&self.0, &other.0) {
            (At::Run(a, i), At::Run(b, j)) => Rc::ptr_eq(a, b) && i == j,
            (At::Alone(a), At::Alone(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl fmt::Debug for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m: &Moment = self;
        write!(f, "Shown(event {}, {})", m.frame.event, m.frame.kind)
    }
}

/// The event `at` of a run, laid out whole: `laid`, the run's own, when
/// it is the one the run laid out (`laid_out`), else `again(at)` (the
/// scenario played again for it: stepping to another event). A moment
/// equal to the last one shown (a window that moves no line this event
/// crosses) stays that one: the panels compare it by pointer, and are not
/// drawn again.
#[hook]
pub fn use_shown<F>(laid: Option<Shown>, laid_out: usize, at: usize, again: F) -> Option<Shown>
where
    F: FnOnce(usize) -> Option<Shown> + 'static,
{
    let shown = (*use_memo((laid, laid_out, at), move |(laid, laid_out, at)| {
        if laid_out == at {
            laid.clone()
        } else {
            again(*at)
        }
    }))
    .clone();
    let last = use_mut_ref(|| None::<Shown>);
    let mut last = last.borrow_mut();
    match (shown, last.as_ref()) {
        (Some(new), Some(old)) if new != *old && *new == **old => Some(old.clone()),
        (new, _) => {
            last.clone_from(&new);
            new
        }
    }
}
