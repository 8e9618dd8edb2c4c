//! The fake clock: time passes only when the run waits (or the page settles), and the Stop is a flag.

use crate::agent::browser::ClockHost;

#[derive(Debug, Default)]
pub struct FakeClock {
    pub now_ms: f64,
    /// Each wait the run asked for, in order.
    pub waits: Vec<u32>,
    /// The person pressed Stop.
    pub stop: bool,
}

impl ClockHost for FakeClock {
    fn now_ms(&self) -> f64 {
        self.now_ms
    }

    async fn wait(&mut self, ms: u32) {
        self.waits.push(ms);
        self.now_ms += ms as f64;
    }

    fn stop_requested(&self) -> bool {
        self.stop
    }
}
