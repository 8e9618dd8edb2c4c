//! The formats a run is written out in (`export`): each one's name (what callers ask for), file ending,
//! media type, and whether it needs the run's screenshots. One table; the worker, agents and
//! the panel read it.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Format {
    pub name: &'static str,
    /// The file name's ending, after the run's stamp (`sightline-<stamp>.<ending>`).
    pub ending: &'static str,
    pub mime: &'static str,
    /// The export draws the run's screenshots (the caller hands them over, decoded).
    pub images: bool,
    /// Its text is a `data:` URL of the file, not the file itself.
    pub data_url: bool,
}

pub const FORMATS: &[Format] = &[
    Format { name: "midscene-yaml", ending: "yaml", mime: "text/yaml", images: false, data_url: false },
    Format { name: "playwright", ending: "spec.ts", mime: "text/plain", images: false, data_url: false },
    Format { name: "recorder", ending: "recording.json", mime: "application/json", images: false, data_url: false },
    Format { name: "report", ending: "report.html", mime: "text/html", images: true, data_url: false },
    Format { name: "gif", ending: "gif", mime: "image/gif", images: true, data_url: true },
];

/// The format called `name`, or an error naming those there are.
pub fn format(name: &str) -> Result<&'static Format, String> {
    FORMATS
        .iter()
        .find(|f| f.name == name)
        .ok_or_else(|| format!("unknown export format \u{201c}{name}\u{201d}: use {}", names(FORMATS.iter())))
}

/// The formats an agent may ask for: those whose text is the file (an image's data URL is no
/// answer a coding agent reads).
pub fn for_agents() -> impl Iterator<Item = &'static Format> {
    FORMATS.iter().filter(|f| !f.data_url)
}

/// Names as a list to read: `a, b or c`.
pub fn names<'a>(formats: impl Iterator<Item = &'a Format>) -> String {
    let all: Vec<&str> = formats.map(|f| f.name).collect();
    super::catalog::either(&all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_is_found_by_its_name_and_an_unknown_one_names_the_rest() {
        assert_eq!(format("playwright").unwrap().ending, "spec.ts");
        assert!(format("report").unwrap().images);
        let e = format("pdf").unwrap_err();
        assert!(e.contains("midscene-yaml, playwright, recorder, report or gif"), "{e}");
        assert_eq!(names(for_agents()), "midscene-yaml, playwright, recorder or report");
    }
}
