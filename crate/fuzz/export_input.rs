//! Shared by the export targets: an input as a recording (or a run) of hostile texts and its
//! benign twin, built by the host tests' own builder (crate/core/src/export/samples.rs).
//!
//! Input: one byte of flags (bit 0: Chinese), one byte N, then N (op, element) byte pairs, then
//! the texts, separated by NUL (invalid UTF-8 read as U+FFFD), drawn in turn.
#![allow(dead_code)] // each target uses its part

pub mod samples {
    include!("../core/src/export/samples.rs");
}
use samples::Draw;
use sightline::vocab::geometry::WindowSize;

pub const VIEWPORT: WindowSize = WindowSize { width: 1280, height: 800 };

pub struct Input {
    pub chinese: bool,
    pub steps: Vec<(u8, u8)>,
    pub texts: Vec<String>,
}

impl Input {
    pub fn read(data: &[u8]) -> Option<Input> {
        let (&flags, rest) = data.split_first()?;
        let (&n, rest) = rest.split_first()?;
        let n = (n as usize).min(rest.len() / 2).min(40);
        let steps = rest[..2 * n].chunks(2).map(|p| (p[0], p[1])).collect();
        let texts = String::from_utf8_lossy(&rest[2 * n..]).split('\0').map(str::to_string).collect();
        Some(Input { chinese: flags & 1 == 1, steps, texts })
    }

    /// Draws the texts in turn; the twin draws `benign` texts and the same raws.
    pub fn drawer(&self, twin: bool) -> impl FnMut(Draw) -> String + '_ {
        let mut i = 0;
        move |d| {
            let s = &self.texts[i % self.texts.len()];
            i += 1;
            if twin && d == Draw::Text {
                samples::benign(s)
            } else {
                s.clone()
            }
        }
    }

    /// The recording and its benign twin.
    pub fn recordings(&self) -> (sightline::export::Recording, sightline::export::Recording) {
        (
            samples::recording(&self.steps, self.chinese, &mut self.drawer(false)),
            samples::recording(&self.steps, self.chinese, &mut self.drawer(true)),
        )
    }

    /// A run of `steps` steps (at most 4) and its benign twin, each step's screenshot `shot`.
    pub fn runs(&self, shot: &str) -> (sightline::agent::record::Run, sightline::agent::record::Run) {
        let steps = self.steps.len().min(4);
        (
            samples::run(steps, self.chinese, shot, &mut self.drawer(false)),
            samples::run(steps, self.chinese, shot, &mut self.drawer(true)),
        )
    }
}
