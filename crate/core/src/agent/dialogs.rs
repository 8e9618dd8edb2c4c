//! The page's own dialogs during an action. A `confirm()`, `prompt()` or `beforeunload` that
//! a model's click raises is a decision (delete the item? leave with unsaved changes?), so it
//! is not answered OK silently: the run asks the person, unless it was told how to answer
//! (`dialogs: accept | dismiss`). Alerts only inform: the host answers them and the step notes
//! them. A run with nobody to ask and no answer set dismisses the dialog and fails the step,
//! saying what the page asked and how to set the answer.
//!
//! The host's input command does not return while a dialog is open, so the host resolves
//! `dispatch` (and `settle`, `answer_dialog`) early when one opens, and the loop here decides
//! and answers through [`Browser::answer_dialog`], after which the interrupted input goes on.

use super::ask::{Answer, AnsweredBy, Asked, DialogKind, PageDialog, Question};
use super::browser::{ask_person, Browser, PageError, Settled};
use super::record::Run;
use crate::action::InputCommand;
use crate::prompt::Outcome;
use crate::vocab::tasks::DialogPolicy;

/// A page's dialog text is shown and recorded up to this many characters.
const MAX_DIALOG_CHARS: usize = 500;
/// Dialogs one action may raise before the page is taken to be asking for ever.
const MAX_DIALOGS_PER_ACTION: usize = 10;

impl PageDialog {
    /// The dialog with its texts cut to a readable length.
    fn trimmed(mut self) -> Self {
        for text in [&mut self.message, &mut self.default_prompt] {
            if text.chars().count() > MAX_DIALOG_CHARS {
                *text = text.chars().take(MAX_DIALOG_CHARS).chain(['\u{2026}']).collect();
            }
        }
        self
    }

    /// The message on one line, short, quoted: for step notes and errors.
    fn quoted(&self) -> String {
        let line = self.message.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.is_empty() {
            return String::new();
        }
        let short: String =
            if line.chars().count() > 80 { line.chars().take(79).chain(['\u{2026}']).collect() } else { line };
        format!(" \u{201c}{short}\u{201d}")
    }
}

/// What answering the dialogs of one step left: notes for the step, what the model's next
/// round is told (the page's words kept as page text), and the answers for the record.
#[derive(Debug, Default)]
pub(crate) struct Answered {
    pub notes: Vec<String>,
    pub told: Outcome,
    pub asked: Vec<Asked>,
}

impl Answered {
    pub fn note(&mut self) -> Option<String> {
        let notes = std::mem::take(&mut self.notes);
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}

/// Why an action ended before the page settled.
#[derive(Debug)]
pub(crate) enum Interrupted {
    /// The page side failed; the run ends.
    Page(PageError),
    /// A dialog nobody could answer was dismissed; the step fails, saying so.
    Unanswered(String),
    /// The person stopped the run while a dialog waited; it was dismissed.
    Stopped,
}

impl From<PageError> for Interrupted {
    fn from(e: PageError) -> Self {
        Interrupted::Page(e)
    }
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Interrupted::Page(e) => write!(f, "{e}"),
            Interrupted::Unanswered(why) => write!(f, "{why}"),
            Interrupted::Stopped => {
                write!(f, "stopped while the page's dialog waited for an answer (Sightline answered Cancel)")
            }
        }
    }
}

/// How an action reaches the page.
pub(crate) enum Delivery<'a> {
    Input(&'a [InputCommand]),
    /// A click that opens a file chooser, answered with these paths.
    Files(&'a [InputCommand], &'a [String]),
    /// A move of the browser's own: an address, the history, a tab.
    Go(&'a crate::vocab::actions::Go),
    /// Option `index` of a native select, chosen; what was chosen goes into the `Option`.
    Choose(&'a crate::describe::Element, u32, &'a mut Option<super::browser::ChosenOption>),
}

/// Sends the input and waits for the page to react, answering every dialog the page opens
/// meanwhile as `policy` says (how, in `answered`). Returns what the page did, over every wait.
pub(crate) async fn act<B: Browser>(
    run: &mut Run,
    browser: &mut B,
    delivery: Delivery<'_>,
    policy: DialogPolicy,
    answered: &mut Answered,
) -> Result<Settled, Interrupted> {
    match delivery {
        Delivery::Input(cmds) => browser.dispatch(cmds).await?,
        Delivery::Files(click, files) => browser.choose_files(click, files).await?,
        Delivery::Go(to) => browser.go(to).await?,
        Delivery::Choose(element, index, chosen) => *chosen = Some(browser.choose(element, index).await?),
    }
    let mut count = 0;
    answer_open(run, browser, policy, answered, &mut count).await?;
    settle_counted(run, browser, policy, answered, &mut count).await
}

/// Waits for the page (`Browser::settle`), answering the dialogs that open meanwhile.
pub(crate) async fn settle<B: Browser>(
    run: &mut Run,
    browser: &mut B,
    policy: DialogPolicy,
    answered: &mut Answered,
) -> Result<Settled, Interrupted> {
    settle_counted(run, browser, policy, answered, &mut 0).await
}

async fn settle_counted<B: Browser>(
    run: &mut Run,
    browser: &mut B,
    policy: DialogPolicy,
    answered: &mut Answered,
    count: &mut usize,
) -> Result<Settled, Interrupted> {
    let mut settled: Option<Settled> = None;
    loop {
        let now = browser.settle().await?;
        settled = Some(match settled {
            None => now,
            Some(before) => then(before, now),
        });
        if browser.open_dialog().is_none() {
            return Ok(settled.unwrap_or_default());
        }
        // A dialog interrupted the wait: once answered, the page goes on (a navigation after
        // beforeunload), and is waited for again.
        answer_open(run, browser, policy, answered, count).await?;
    }
}

/// Two waits of one action as one: from where the first began to where the last ended.
pub(crate) fn then(first: Settled, later: Settled) -> Settled {
    Settled {
        url_before: if first.url_before.is_empty() { later.url_before } else { first.url_before },
        url: later.url,
        loaded: first.loaded || later.loaded,
        followed_tab: first.followed_tab || later.followed_tab,
        dialogs: [first.dialogs, later.dialogs].concat(),
    }
}

/// Answers the dialogs the page holds open, one after another, until none is.
async fn answer_open<B: Browser>(
    run: &mut Run,
    browser: &mut B,
    policy: DialogPolicy,
    answered: &mut Answered,
    count: &mut usize,
) -> Result<(), Interrupted> {
    while let Some(dialog) = browser.open_dialog() {
        let dialog = dialog.trimmed();
        *count += 1;
        if *count > MAX_DIALOGS_PER_ACTION {
            browser.answer_dialog(false, None).await?;
            return Err(Interrupted::Unanswered(format!(
                "the page opened more than {MAX_DIALOGS_PER_ACTION} dialogs during one action; Sightline answered the last{} with {} and stopped there",
                dialog.quoted(),
                dialog.kind.button(false)
            )));
        }
        let (accept, text, by) = match (dialog.kind, policy) {
            // Alerts only inform (the host answers them; one that reaches here is answered too).
            (DialogKind::Alert, _) | (_, DialogPolicy::Accept) => (true, None, AnsweredBy::Setting),
            (_, DialogPolicy::Dismiss) => (false, None, AnsweredBy::Setting),
            (_, DialogPolicy::Ask) => {
                match ask_person(run, browser, Question::PageDialog { dialog: dialog.clone() }).await? {
                    Some(Answer::Dialog { accept, text }) => {
                        (accept, text.filter(|_| accept && dialog.kind == DialogKind::Prompt), AnsweredBy::Person)
                    }
                    _ => {
                        browser.answer_dialog(false, None).await?;
                        answered.asked.push(Asked {
                            question: Question::PageDialog { dialog: dialog.clone() },
                            answer: Answer::Dialog { accept: false, text: None },
                            by: AnsweredBy::Nobody,
                        });
                        if browser.stop_requested() {
                            return Err(Interrupted::Stopped);
                        }
                        return Err(Interrupted::Unanswered(unanswered(&dialog)));
                    }
                }
            }
        };
        browser.answer_dialog(accept, text.as_deref()).await?;
        let button = dialog.kind.button(accept);
        let typed = text.as_deref().map(|t| format!(", typing \u{201c}{t}\u{201d}")).unwrap_or_default();
        let (who, whom) = match by {
            AnsweredBy::Person => ("you answered", "the person"),
            _ => ("answered", "Sightline, as the run is set to,"),
        };
        answered.notes.push(format!(
            "{who} the page's {} dialog{} with {button}{typed}",
            dialog.kind.name(),
            dialog.quoted()
        ));
        let mut told =
            Outcome::ours(format!("the page opened a {} dialog and {whom} answered {button}", dialog.kind.name()));
        if !dialog.message.trim().is_empty() {
            told.add("; it said ").page(&dialog.message);
        }
        answered.told = std::mem::take(&mut answered.told).and(told);
        answered.asked.push(Asked {
            question: Question::PageDialog { dialog },
            answer: Answer::Dialog { accept, text },
            by,
        });
    }
    Ok(())
}

/// The step's error when nobody was there to answer: what the page asked, and how to set the answer.
fn unanswered(dialog: &PageDialog) -> String {
    format!(
        "the page opened a {} dialog{} and nobody is here to answer it, so Sightline answered {}. To have this run answer the page's dialogs itself, \
         set its dialogs answer to accept or dismiss: `dialogs:` under `web:` in a flow file, `scripts/run --dialogs accept`, \
         or the `dialogs` option of act, ai and runFlow",
        dialog.kind.name(),
        dialog.quoted(),
        dialog.kind.button(false)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_are_read_by_name() {
        assert_eq!(DialogPolicy::from_name(" Accept "), Some(DialogPolicy::Accept));
        assert_eq!(DialogPolicy::from_name("dismiss"), Some(DialogPolicy::Dismiss));
        assert_eq!(DialogPolicy::from_name("ask"), Some(DialogPolicy::Ask));
        assert_eq!(DialogPolicy::from_name("yes"), None);
        assert_eq!(serde_json::from_str::<DialogPolicy>("\"accept\"").unwrap(), DialogPolicy::Accept);
    }

    #[test]
    fn long_dialog_texts_are_cut() {
        let d = PageDialog {
            kind: DialogKind::Confirm,
            message: "x".repeat(5000),
            default_prompt: String::new(),
            url: String::new(),
        }
        .trimmed();
        assert_eq!(d.message.chars().count(), MAX_DIALOG_CHARS + 1);
        assert!(d.quoted().chars().count() < 90);
        let e = unanswered(&d);
        assert!(e.contains("confirm dialog") && e.contains("answered Cancel") && e.contains("dialogs:"), "{e}");
    }
}
