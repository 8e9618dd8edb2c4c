//! Server-sent events, decoded incrementally: bytes arrive in any split (mid-line, mid-UTF-8
//! character) and complete events come out as soon as their blank line arrives.

/// One event: its `event:` name (empty when absent) and its `data:` lines joined by `\n`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SseEvent {
    pub event: String,
    pub data: String,
}

#[derive(Default)]
pub struct SseDecoder {
    /// Bytes after the last complete line.
    pending: Vec<u8>,
    current: SseEvent,
    has_data: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes; returns the events they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.pending.extend_from_slice(bytes);
        let mut events = Vec::new();
        // `\n` never occurs inside a UTF-8 sequence, so whole lines are whole characters.
        let mut start = 0;
        while let Some(offset) = self.pending[start..].iter().position(|&b| b == b'\n') {
            let end = start + offset;
            let line = String::from_utf8_lossy(&self.pending[start..end]).into_owned();
            self.line(line.trim_end_matches('\r'), &mut events);
            start = end + 1;
        }
        self.pending.drain(..start);
        events
    }

    /// The stream ended: a last event without its blank line still counts.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.pending.is_empty() {
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
            self.line(line.trim_end_matches('\r'), &mut events);
        }
        self.line("", &mut events);
        events
    }

    fn line(&mut self, line: &str, events: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if self.has_data {
                events.push(std::mem::take(&mut self.current));
            }
            self.current = SseEvent::default();
            self.has_data = false;
            return;
        }
        if line.starts_with(':') {
            return; // comment / keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.current.data.push('\n');
                }
                self.current.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.current.event = value.to_string(),
            _ => {} // id, retry: not used by model APIs
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut out: Vec<SseEvent> = chunks.iter().flat_map(|c| d.feed(c)).collect();
        out.extend(d.finish());
        out
    }

    #[test]
    fn events_survive_any_split() {
        let body = "event: a\ndata: {\"t\":\"héllo\"}\n\n: ping\n\ndata: x\ndata: y\r\n\r\ndata: last";
        let whole = all(&[body.as_bytes()]);
        assert_eq!(
            whole,
            vec![
                SseEvent { event: "a".into(), data: "{\"t\":\"héllo\"}".into() },
                SseEvent { event: String::new(), data: "x\ny".into() },
                SseEvent { event: String::new(), data: "last".into() },
            ]
        );
        let bytes = body.as_bytes();
        for cut in 0..bytes.len() {
            assert_eq!(all(&[&bytes[..cut], &bytes[cut..]]), whole, "split at {cut}");
        }
        let singles: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(all(&singles), whole);
    }

    #[test]
    fn events_come_out_as_soon_as_complete() {
        let mut d = SseDecoder::new();
        assert!(d.feed(b"data: 1\n").is_empty());
        assert_eq!(d.feed(b"\ndata: 2").len(), 1);
        assert_eq!(d.finish().len(), 1);
    }
}
