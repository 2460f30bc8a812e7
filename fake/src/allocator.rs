//! [`Allocator`]: mimalloc as a global allocator for binaries that drive the fake hard.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// Every block mimalloc hands out is aligned to a machine word at least.
const PLAIN_ALIGN: usize = std::mem::size_of::<usize>();

/// mimalloc as the global allocator, taking its plain path for the alignments almost every Rust
/// allocation has.
///
/// The fake makes a few dozen small allocations per request, and so does the SDK. The usual
/// wrapper asks mimalloc for an aligned block every time; whenever a page's free list runs dry,
/// that path falls back to over-allocating, which made an engine call about 4% more expensive
/// than asking for a plain block (`cargo bench -p dynalease-fake --bench engine`, counted with
/// callgrind). Use it in a test binary, a sweep or a server:
///
/// ```
/// #[global_allocator]
/// static ALLOCATOR: dynalease_fake::Allocator = dynalease_fake::Allocator;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Allocator;

// SAFETY: mimalloc is a general-purpose allocator. A block from `mi_malloc`, `mi_zalloc` or
// `mi_realloc` is aligned to at least a machine word, so those serve only layouts whose alignment
// is at most that; larger alignments go to mimalloc's aligned functions. Every block, however
// made, is returned with `mi_free`, which accepts all of them.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain C calls; `layout`'s alignment is a power of two, as mimalloc requires.
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from mimalloc.
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from mimalloc with `layout`; the new block keeps its alignment.
        unsafe {
            if layout.align() <= PLAIN_ALIGN {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every alignment up to a page come back aligned, keep their contents through a
    /// reallocation, and zeroed blocks are zero.
    #[test]
    fn blocks_are_aligned_zeroed_and_kept() {
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 7, 8, 24, 100, 5000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; every block is freed once, with its own layout.
                unsafe {
                    let zeroed = Allocator.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0, "zeroed {size} aligned {align}");
                    assert!(std::slice::from_raw_parts(zeroed, size).iter().all(|&b| b == 0));
                    Allocator.dealloc(zeroed, layout);

                    let block = Allocator.alloc(layout);
                    assert_eq!(block as usize % align, 0, "{size} aligned {align}");
                    std::ptr::write_bytes(block, 0xA5, size);
                    let grown = Allocator.realloc(block, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "grown {size} aligned {align}");
                    assert!(std::slice::from_raw_parts(grown, size).iter().all(|&b| b == 0xA5));
                    Allocator.dealloc(grown, Layout::from_size_align(size * 3, align).unwrap());
                }
            }
        }
    }
}
