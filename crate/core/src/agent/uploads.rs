//! Uploads whose paths come from a file. A shared flow file or a saved run names local files
//! to upload; its author, not the person, chose them (`/home/me/.ssh/id_rsa`). Such uploads
//! need the person's Allow in the panel, which lists the paths, before any file is chosen, or
//! an upload folder the person gave (`scripts/run --upload-dir`) holding every path. Paths the
//! person typed in the panel's upload form, or an automation caller passed directly, are theirs
//! (`RunOptions::typed_uploads`).

use super::ask::{Answer, AnsweredBy, Asked, Question};
use super::browser::{ask_person, Browser};
use super::error::RunError;
use super::options::RunOptions;
use super::record::{Run, Step, StepKind, StepStatus};

/// Whether `path` lies inside `folder`, judged on the text alone: both absolute, no `.` or `..`
/// step in either (the text cannot say where those lead), and `path` below `folder`. Either
/// separator splits steps. The runner resolves real paths (symlinks, `..`) before the run;
/// this is the core's own check of what it is given.
pub fn inside_folder(path: &str, folder: &str) -> bool {
    fn steps(p: &str) -> Option<(String, Vec<&str>)> {
        let b = p.as_bytes();
        // `/…`, `\\server\share\…`, `C:\…`: what is before the first step roots the path.
        let (root, rest) = if let Some(rest) = p.strip_prefix("\\\\") {
            ("\\\\".to_string(), rest)
        } else if let Some(rest) = p.strip_prefix('/') {
            ("/".to_string(), rest)
        } else if b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/') {
            (p[..2].to_ascii_uppercase(), &p[3..])
        } else {
            return None;
        };
        let steps: Vec<&str> = rest.split(['/', '\\']).filter(|s| !s.is_empty()).collect();
        if steps.iter().any(|s| *s == "." || *s == "..") {
            return None;
        }
        Some((root, steps))
    }
    let (Some((root, path)), Some((folder_root, folder))) = (steps(path), steps(folder)) else {
        return false;
    };
    root == folder_root && path.len() > folder.len() && path.starts_with(&folder)
}

/// Clears the upload of `files` for this run: at once when the paths are the person's own or
/// all lie in the upload folder, else by asking the person. Records the decision as a step;
/// `Err` (the task's error) when refused.
pub(crate) async fn clear<B: Browser>(
    run: &mut Run,
    browser: &mut B,
    files: &[String],
    options: &RunOptions,
) -> Result<(), RunError> {
    if options.typed_uploads {
        return Ok(());
    }
    let started = browser.now_ms();
    let question = Question::Upload { paths: files.to_vec() };
    let folder = options.upload_dir.as_deref().map(str::trim).filter(|f| !f.is_empty());
    let outside: Vec<&String> = files.iter().filter(|f| !folder.is_some_and(|dir| inside_folder(f, dir))).collect();
    let (allow, by) = if outside.is_empty() {
        (true, AnsweredBy::Setting)
    } else {
        match ask_person(run, browser, question.clone()).await? {
            Some(Answer::Upload { allow }) => (allow, AnsweredBy::Person),
            _ => (false, AnsweredBy::Nobody),
        }
    };
    let listed = files.join(", ");
    let error = match (allow, by) {
        (true, _) => None,
        (false, AnsweredBy::Person) => Some(RunError::UploadRefused { files: listed.clone() }),
        _ if browser.stop_requested() => Some(RunError::UploadStopped),
        _ => {
            let outside: Vec<&str> = outside.iter().map(|s| s.as_str()).collect();
            Some(match folder {
                Some(dir) => RunError::UploadOutsideFolder { files: outside.join(", "), folder: dir.to_string() },
                None => RunError::UploadNeedsAllow { files: listed.clone() },
            })
        }
    };
    let note = match by {
        AnsweredBy::Person if allow => Some("you allowed it".to_string()),
        AnsweredBy::Setting => {
            Some(format!("allowed: every file lies inside the upload folder {}", folder.unwrap_or_default()))
        }
        _ => None,
    };
    run.steps.push(Step {
        status: if allow { StepStatus::Ok } else { StepStatus::Failed },
        action: format!("Upload {listed} (named by a file, not by you)"),
        error: error.as_ref().map(|e| e.message(run.language)),
        note,
        duration_ms: browser.now_ms() - started,
        asked: vec![Asked { question, answer: Answer::Upload { allow }, by }],
        ..Step::new(StepKind::Action, started)
    });
    browser.report(run);
    error.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_inside_a_folder_by_its_steps() {
        assert!(inside_folder("/tmp/up/a.txt", "/tmp/up"));
        assert!(inside_folder("/tmp/up/sub/a.txt", "/tmp/up/"));
        assert!(inside_folder("/tmp//up/a.txt", "/tmp/up"), "empty steps are no steps");
        assert!(!inside_folder("/tmp/up", "/tmp/up"), "the folder itself is no file in it");
        assert!(!inside_folder("/tmp/upload/a.txt", "/tmp/up"), "a longer name is another folder");
        assert!(!inside_folder("/tmp/up/../../etc/passwd", "/tmp/up"), "`..` is refused, not resolved");
        assert!(!inside_folder("/tmp/up/./a.txt", "/tmp/up"));
        assert!(!inside_folder("/etc/hostname", "/tmp/up"));
        assert!(!inside_folder("a.txt", "/tmp/up") && !inside_folder("/tmp/up/a.txt", "up"), "both absolute");
        assert!(inside_folder("C:\\Users\\me\\up\\a.txt", "c:/Users/me/up"));
        assert!(!inside_folder("D:\\Users\\me\\up\\a.txt", "C:\\Users\\me\\up"));
        assert!(inside_folder("\\\\server\\share\\a.txt", "\\\\server\\share"));
        assert!(!inside_folder("/server/share/a.txt", "\\\\server\\share"), "another root");
    }
}
