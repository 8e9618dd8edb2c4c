//! When to try a model call again, and how long to wait first: rate limits (429), server
//! trouble (5xx, Anthropic's 529) and dropped connections are worth another try; bad keys,
//! bad requests, timeouts and the person pressing Stop are not.

use super::ModelError;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryPolicy {
    pub max_retries: u32,
    /// The first wait; each later one doubles, up to `max_delay_ms`.
    pub base_delay_ms: u64,
    pub max_delay_ms: u64,
    /// A server asking for a longer wait than this is not retried: the person would sit
    /// watching a stalled run; the error tells them how long the server wants.
    pub max_retry_after_ms: u64,
}

impl RetryPolicy {
    pub fn new(max_retries: u32) -> Self {
        RetryPolicy { max_retries, base_delay_ms: 1_000, max_delay_ms: 20_000, max_retry_after_ms: 60_000 }
    }
}

pub fn retryable(e: &ModelError) -> bool {
    match e {
        ModelError::Http { status, .. } => matches!(status, 408 | 409 | 425 | 429 | 500 | 502 | 503 | 504 | 529),
        ModelError::Network(_) => true,
        _ => false,
    }
}

/// How long to wait before retry number `attempt` (0-based), or `None` to give up.
/// `retry_after_ms` is what the server asked for, if anything.
pub fn delay_ms(policy: &RetryPolicy, attempt: u32, error: &ModelError, retry_after_ms: Option<u64>) -> Option<u64> {
    if attempt >= policy.max_retries || !retryable(error) {
        return None;
    }
    match retry_after_ms {
        Some(ms) if ms > policy.max_retry_after_ms => None,
        Some(ms) => Some(ms),
        None => Some(policy.base_delay_ms.saturating_mul(1 << attempt.min(16)).min(policy.max_delay_ms)),
    }
}

/// The server's requested wait from `retry-after-ms` (OpenAI) or `Retry-After` (seconds
/// or an HTTP date), given the wall clock in ms since the epoch.
pub fn retry_after_ms(headers: &[(String, String)], now_epoch_ms: f64) -> Option<u64> {
    let get = |name: &str| headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim());
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite() && *v >= 0.0) {
        return Some(ms.ceil() as u64);
    }
    let value = get("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).ceil() as u64);
    }
    let at = http_date_ms(value)?;
    Some((at - now_epoch_ms).max(0.0).ceil() as u64)
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) as ms since the epoch.
fn http_date_ms(s: &str) -> Option<f64> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    let [_, day, month, year, time, zone] = parts[..] else { return None };
    if zone != "GMT" {
        return None;
    }
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<i64> = time.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [h, m, sec] = hms[..] else { return None };
    if !(1..=31).contains(&day) || h > 23 || m > 59 || sec > 60 {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3600 + m * 60 + sec) * 1000) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(name: &str, value: &str) -> Vec<(String, String)> {
        vec![(name.into(), value.into())]
    }

    #[test]
    fn what_is_retried() {
        let http = |status| ModelError::Http { status, message: String::new() };
        for s in [429, 500, 502, 503, 504, 529] {
            assert!(retryable(&http(s)), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(!retryable(&http(s)), "{s}");
        }
        assert!(retryable(&ModelError::Network("reset".into())));
        assert!(!retryable(&ModelError::Timeout(60)));
        assert!(!retryable(&ModelError::Aborted));
        assert!(!retryable(&ModelError::BadResponse("x".into())));
    }

    #[test]
    fn backoff_doubles_and_caps_retry_after_wins() {
        let p = RetryPolicy::new(5);
        let e = ModelError::Http { status: 503, message: String::new() };
        let waits: Vec<_> = (0..6).map(|a| delay_ms(&p, a, &e, None)).collect();
        assert_eq!(waits, vec![Some(1000), Some(2000), Some(4000), Some(8000), Some(16000), None]);
        assert_eq!(delay_ms(&p, 0, &e, Some(2500)), Some(2500));
        assert_eq!(delay_ms(&p, 0, &e, Some(120_000)), None, "too long a wait gives up at once");
        assert_eq!(delay_ms(&RetryPolicy::new(0), 0, &e, None), None);
    }

    #[test]
    fn reads_every_retry_after_spelling() {
        assert_eq!(retry_after_ms(&h("Retry-After", "3"), 0.0), Some(3000));
        assert_eq!(retry_after_ms(&h("retry-after-ms", "150.5"), 0.0), Some(151));
        assert_eq!(retry_after_ms(&h("Retry-After", "soon"), 0.0), None);
        assert_eq!(retry_after_ms(&h("Retry-After", "-1"), 0.0), None);
        let now = http_date_ms("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(now, 784_111_777_000.0);
        assert_eq!(retry_after_ms(&h("Retry-After", "Sun, 06 Nov 1994 08:49:47 GMT"), now), Some(10_000));
        assert_eq!(retry_after_ms(&h("Retry-After", "Sun, 06 Nov 1994 08:49:27 GMT"), now), Some(0));
        assert_eq!(retry_after_ms(&[], now), None);
    }
}
