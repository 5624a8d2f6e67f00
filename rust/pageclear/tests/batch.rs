// SPDX-License-Identifier: MIT OR Apache-2.0
//! Batched clearing: the callback's arguments, the preemption models,
//! cancellation and its cleared prefix, and panics in the callback.

mod common;

use std::ops::ControlFlow;
use std::panic::{AssertUnwindSafe, catch_unwind};

use common::{Arena, PAGE};
use pageclear::{Batch, ErrorKind, Preempt};

#[test]
fn default_batch_is_the_librarys() {
    let b = Batch::default();
    assert_eq!((b.unit, b.model), (0, Preempt::None));
    assert!(pageclear::default_unit() >= 1);
}

#[test]
fn callback_runs_before_each_unit_with_done_and_total() {
    let mut arena = Arena::new(1 << 20);
    for model in [Preempt::None, Preempt::Voluntary] {
        for (unit, len) in [
            (PAGE, 10 * PAGE),
            (PAGE, 10 * PAGE + 5),
            (3 * PAGE, 1 << 20),
            (1, 9),
        ] {
            let mut seen = Vec::new();
            let batch = Batch { unit, model };
            let n = pageclear::clear_batched(arena.range(0, len), &batch, |done, total| {
                seen.push((done, total));
                ControlFlow::Continue(())
            });
            assert_eq!(n, Ok(len));
            arena.check(0, len, "batched");
            // Page-aligned start: units of `unit` bytes, the last one short.
            let want: Vec<(usize, usize)> = (0..len).step_by(unit).map(|d| (d, len)).collect();
            assert_eq!(seen, want, "{model:?} unit {unit} len {len}");
        }
    }
}

#[test]
fn unaligned_start_keeps_units_on_the_page_grid() {
    let mut arena = Arena::new(1 << 20);
    let off = 100;
    let len = 4 * PAGE;
    let mut seen = Vec::new();
    let batch = Batch {
        unit: PAGE,
        ..Default::default()
    };
    let n = pageclear::clear_batched(arena.range(off, len), &batch, |done, _| {
        seen.push(done);
        ControlFlow::Continue(())
    });
    assert_eq!(n, Ok(len));
    arena.check(off, len, "unaligned");
    // First unit ends at the page boundary, then whole pages, then the rest.
    let first = PAGE - off;
    let want: Vec<usize> = std::iter::once(0)
        .chain((first..len).step_by(PAGE))
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn full_and_lazy_preemption_never_call_back() {
    let mut arena = Arena::new(1 << 20);
    for model in [Preempt::Full, Preempt::Lazy] {
        let batch = Batch { unit: PAGE, model };
        let n = pageclear::clear_batched(arena.range(3, 1 << 20), &batch, |_, _| {
            panic!("callback under {model:?}")
        });
        assert_eq!(n, Ok(1 << 20));
        arena.check(3, 1 << 20, "full/lazy");
    }
}

#[test]
fn break_stops_with_the_cleared_prefix_and_nothing_after() {
    let mut arena = Arena::new(1 << 20);
    let units = 16;
    let len = units * PAGE + 123;
    for stop_at in 0..=units {
        let batch = Batch {
            unit: PAGE,
            ..Default::default()
        };
        let mut calls = 0;
        let e = pageclear::clear_batched(arena.range(0, len), &batch, |done, total| {
            assert_eq!(total, len);
            calls += 1;
            if done >= stop_at * PAGE {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Cancelled);
        assert_eq!(e.errno(), libc::ECANCELED);
        assert_eq!(e.cleared(), Some(stop_at * PAGE), "stop at unit {stop_at}");
        assert_eq!(calls, stop_at + 1);
        arena.check(0, stop_at * PAGE, "cancelled prefix");
    }
    arena.assert_untouched("cancel");
}

#[test]
fn hint_batched_reports_what_it_cleared_when_stopped() {
    let mut arena = Arena::new(1 << 20);
    let len = 64 * PAGE;
    let batch = Batch {
        unit: PAGE,
        ..Default::default()
    };
    let mut calls = 0;
    let e = pageclear::clear_hint_batched(arena.range(0, len), 40 * PAGE, &batch, |_, _| {
        calls += 1;
        if calls > 5 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap_err();
    let cleared = e.cleared().unwrap();
    // Five units before the stop, each a page (the right range comes first).
    assert_eq!(cleared, 5 * PAGE);
    let zeros = arena.range(0, len).iter().filter(|&&b| b == 0).count();
    assert_eq!(zeros, cleared, "bytes zeroed and bytes reported differ");
    arena.reset();
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn panic_in_the_callback_stops_the_clear_and_resumes_after_it() {
    let mut arena = Arena::new(1 << 20);
    let len = 8 * PAGE;
    let mut calls = 0;
    let r = catch_unwind(AssertUnwindSafe(|| {
        let batch = Batch {
            unit: PAGE,
            ..Default::default()
        };
        let _ = pageclear::clear_batched(arena.range(0, len), &batch, |done, _| {
            calls += 1;
            if done == 3 * PAGE {
                panic!("stop at {done}");
            }
            ControlFlow::Continue(())
        });
        unreachable!("the panic must resume after the C call");
    }));
    let p = r.unwrap_err();
    assert_eq!(panic_message(&p), format!("stop at {}", 3 * PAGE));
    assert_eq!(calls, 4, "no callback after the panic");
    // The three units before the panic are cleared, nothing after.
    arena.check(0, 3 * PAGE, "after panic");
    arena.assert_untouched("after panic");

    // The same through clear_hint_batched, with a non-string payload.
    let r = catch_unwind(AssertUnwindSafe(|| {
        let batch = Batch {
            unit: PAGE,
            ..Default::default()
        };
        let _ = pageclear::clear_hint_batched(arena.range(0, len), 0, &batch, |_, _| {
            std::panic::panic_any(42u32)
        });
    }));
    assert_eq!(r.unwrap_err().downcast_ref::<u32>(), Some(&42));
    arena.assert_untouched("hint panic before the first unit");

    // And the library is still usable afterwards.
    pageclear::clear(arena.range(0, len));
    arena.check(0, len, "after panics");
}

#[test]
fn callbacks_may_borrow_and_move_state() {
    let mut buf = vec![1u8; 1 << 20];
    let log = std::cell::RefCell::new(Vec::new());
    let batch = Batch {
        unit: 256 << 10,
        ..Default::default()
    };
    let owned = String::from("moved in");
    let n = pageclear::clear_batched(&mut buf, &batch, move |done, _| {
        assert_eq!(owned, "moved in");
        log.borrow_mut().push(done);
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(n, 1 << 20);
    assert!(buf.iter().all(|&b| b == 0));
}

#[test]
fn batched_clears_run_on_many_threads() {
    std::thread::scope(|s| {
        for t in 0..4 {
            s.spawn(move || {
                let mut buf = vec![0x77u8; (2 << 20) + t];
                let batch = Batch {
                    unit: 64 << 10,
                    model: Preempt::Voluntary,
                };
                let mut calls = 0;
                let n = pageclear::clear_batched(&mut buf[t..], &batch, |_, _| {
                    calls += 1;
                    std::thread::yield_now();
                    ControlFlow::Continue(())
                });
                assert_eq!(n, Ok(2 << 20));
                assert!(calls >= 32);
                assert!(buf[t..].iter().all(|&b| b == 0));
                assert!(buf[..t].iter().all(|&b| b == 0x77));
            });
        }
    });
}
