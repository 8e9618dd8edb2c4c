//! Time as the run sees it, and the person's Stop.

#[allow(async_fn_in_trait)] // single-threaded wasm: no Send bound wanted
pub trait ClockHost {
    fn now_ms(&self) -> f64;
    /// Lets time pass (polling waits).
    async fn wait(&mut self, ms: u32);
    fn stop_requested(&self) -> bool;
}
