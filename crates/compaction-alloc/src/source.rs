//! talc's memory source for single-threaded wasm32 (see the crate).
#![allow(unsafe_code)] // talc's heap management is unsafe by nature

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32::{memory_grow, memory_size};
use core::ptr::NonNull;
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use talc::base::{binning::Binning, Talc, CHUNK_UNIT};
use talc::source::Source;

/// A wasm page.
const PAGE: usize = 64 * 1024;
/// The least a grow adds: 1 MiB.
const MIN_GROW_PAGES: usize = 16;

/// A talc [`Source`] growing the wasm memory by a quarter of its size (at
/// least [`MIN_GROW_PAGES`], at least what the allocation needs), extending
/// the heap when the new pages follow it (they always do unless something
/// else grew the memory).
#[derive(Debug, Default)]
pub struct GrowGeometric {
    /// The end of the heap talc manages, once it has one.
    end: Option<NonNull<u8>>,
}

impl GrowGeometric {
    /// A source with no heap yet.
    pub const fn new() -> Self {
        Self { end: None }
    }
}

/// Pages an allocation of `layout` needs in a fresh heap: its chunk (size
/// and tail, rounded to a chunk unit), a heap's overhead and alignment
/// padding — an upper bound of talc's own figure.
fn pages_for(layout: Layout) -> Option<usize> {
    let bytes = layout
        .size()
        .checked_add(layout.align())?
        .checked_add(3 * CHUNK_UNIT)?;
    Some(bytes.div_ceil(PAGE))
}

/// The end of `bytes` from `base`, saturating at the top of the address
/// space (a 4 GiB memory's last page ends past it; talc aligns it down).
fn end_of(base: *mut u8, bytes: usize) -> *mut u8 {
    (base as usize).saturating_add(bytes) as *mut u8
}

// SAFETY: `acquire` only calls `memory.grow` and talc's own heap management
// on the `talc` it is given; it never allocates.
unsafe impl Source for GrowGeometric {
    fn acquire<B: Binning>(talc: &mut Talc<Self, B>, layout: Layout) -> Result<(), ()> {
        let needed = pages_for(layout).ok_or(())?;
        let wanted = needed.max(memory_size::<0>() / 4).max(MIN_GROW_PAGES);
        let (base_page, pages) = match memory_grow::<0>(wanted) {
            usize::MAX => match memory_grow::<0>(needed) {
                usize::MAX => return Err(()),
                prev => (prev, needed),
            },
            prev => (prev, wanted),
        };
        let base = (base_page * PAGE) as *mut u8;
        let bytes = pages * PAGE;
        if let Some(old_end) = talc.source.end.take() {
            if old_end.as_ptr() == base {
                // SAFETY: the pages from `base` were just grown, are ours
                // alone, and follow the heap talc manages.
                let end = unsafe { talc.extend(old_end, end_of(base, bytes)) };
                talc.source.end = Some(end);
                return Ok(());
            }
        }
        // SAFETY: the pages from `base` were just grown and are ours alone.
        talc.source.end = unsafe { talc.claim(base, bytes) };
        if talc.source.end.is_some() {
            Ok(())
        } else {
            Err(())
        }
    }
}

/// The allocator the modules declare: talc over [`GrowGeometric`], its
/// bytes [`Counted`].
pub type Allocator = Counted<talc::cell::TalcSyncCell<GrowGeometric, talc::wasm::WasmBinning>>;

/// A new [`Allocator`].
pub const fn allocator() -> Allocator {
    Counted(talc::cell::TalcSyncCell::new_wasm(GrowGeometric::new()))
}

/// Bytes the live allocations hold (their layouts' sizes).
static IN_USE: AtomicUsize = AtomicUsize::new(0);
/// The most [`IN_USE`] has been since the last [`reset_peak`].
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// A global allocator counting the bytes its live allocations hold and
/// their peak, so the package's benchmark can say what an engine keeps
/// and what a call needed at most ([`in_use`], [`peak`]). A load, an add
/// and a compare per allocation (single-threaded wasm: plain memory).
#[derive(Debug)]
pub struct Counted<A>(pub A);

fn held(more: usize, less: usize) {
    let now = IN_USE.load(Relaxed).saturating_sub(less).saturating_add(more);
    IN_USE.store(now, Relaxed);
    if now > PEAK.load(Relaxed) {
        PEAK.store(now, Relaxed);
    }
}

// SAFETY: every call is passed to the inner allocator with the caller's
// own arguments and contract; the counting touches no allocation.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counted<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { self.0.alloc(layout) };
        if !ptr.is_null() {
            held(layout.size(), 0);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let ptr = unsafe { self.0.alloc_zeroed(layout) };
        if !ptr.is_null() {
            held(layout.size(), 0);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.0.dealloc(ptr, layout) };
        held(0, layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let moved = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            held(new_size, layout.size());
        }
        moved
    }
}

/// Bytes the module's live allocations hold now.
pub fn in_use() -> usize {
    IN_USE.load(Relaxed)
}

/// The most bytes held at once since the last [`reset_peak`] (or the start).
pub fn peak() -> usize {
    PEAK.load(Relaxed)
}

/// Starts a new peak from what is held now.
pub fn reset_peak() {
    PEAK.store(IN_USE.load(Relaxed), Relaxed);
}
