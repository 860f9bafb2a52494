//! The engine's counting state across processes (R1.6, R1.6a): what a host
//! persists so a resumed engine counts as the live one did.

use super::Engine;
use crate::view::Counting;

impl Engine {
    /// What the count rests on now (the last reported usage, the
    /// calibration, the results the server is predicted to clear), to
    /// persist. A session file keeps it in a
    /// `count_calibrated` record.
    pub fn counting(&self) -> Counting {
        Counting {
            server_cleared: self.microcompact.saved(),
            ..self.view.counting()
        }
    }

    /// Whether [`Engine::counting`] is `last`, allocating nothing (a host
    /// asks after every call).
    pub fn counting_is(&self, last: &Counting) -> bool {
        let same = self.view.counting_is(last) && self.microcompact.saved_is(last.server_cleared.as_ref());
        debug_assert_eq!(same, self.counting() == *last);
        same
    }

    /// Takes a persisted counting state as the view's own, as the view
    /// stands now (a resumed session's, loaded up to the message the
    /// record followed). Returns whether its usage was placed: `false`
    /// when the view no longer holds the message that usage belongs to.
    pub fn restore_counting(&mut self, counting: &Counting) -> bool {
        // The prediction first: the anchor is then placed on the view as
        // the server will see it, as the live one was.
        if let Some(saved) = &counting.server_cleared {
            self.microcompact.restore(&mut self.view, saved);
        }
        self.view.restore_counting(counting)
    }
}
