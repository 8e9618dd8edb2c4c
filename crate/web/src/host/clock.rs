//! The worker's clock, waits and the person's Stop.

use super::*;

impl ClockHost for HostBrowser {
    async fn wait(&mut self, ms: u32) {
        let _ = self.host.wait(ms).await;
    }

    fn now_ms(&self) -> f64 {
        now_ms()
    }

    fn stop_requested(&self) -> bool {
        self.host.stop_requested()
    }
}
