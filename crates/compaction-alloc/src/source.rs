//! talc's memory source for single-threaded wasm32 (see the crate).
#![allow(unsafe_code)] // talc's heap management is unsafe by nature

use core::alloc::Layout;
use core::arch::wasm32::{memory_grow, memory_size};
use core::ptr::NonNull;

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

/// The allocator the modules declare: talc over [`GrowGeometric`].
pub type Allocator = talc::cell::TalcSyncCell<GrowGeometric, talc::wasm::WasmBinning>;

/// A new [`Allocator`].
pub const fn allocator() -> Allocator {
    talc::cell::TalcSyncCell::new_wasm(GrowGeometric::new())
}
