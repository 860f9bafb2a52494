//! The modules' allocator grows the wasm memory geometrically: a heap built
//! from many small allocations takes a few dozen `memory.grow`s, not one per
//! page or two (V8 answers every grow with a new `ArrayBuffer`; talc's own
//! source made a 40k-boundary session import spend a fifth of its time in
//! the garbage collector: 555 collections, against 10 now).

use core::arch::wasm32::memory_size;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn memory_grows_geometrically() {
    let mut held: Vec<Box<[u8]>> = Vec::new();
    let mut pages = memory_size::<0>();
    let start = pages;
    let mut grows = 0;
    // 128k allocations of 512 bytes: 64 MiB held.
    for i in 0..128 * 1024 {
        held.push(vec![i as u8; 512].into_boxed_slice());
        let now = memory_size::<0>();
        if now != pages {
            grows += 1;
            pages = now;
        }
    }
    let held_bytes: usize = held.iter().map(|b| b.len()).sum();
    assert_eq!(held_bytes, 64 << 20);
    // From `start` pages to over 1,024 at ×1.25 a grow: about 20 grows.
    assert!(
        grows <= 40,
        "{grows} memory.grow calls from {start} to {pages} pages"
    );
    // The overshoot stays bounded: no more than twice what is held.
    assert!(pages * 64 * 1024 <= 2 * held_bytes + (start << 16) + (16 << 20));
}
