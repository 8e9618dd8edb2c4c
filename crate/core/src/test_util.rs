//! Helpers shared by host tests.

use std::future::Future;
use std::task::{Context, Poll, Waker};

/// Runs a future whose awaits never wait (every fake resolves at once).
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}
