//! What a run asks the person, and how they answer. Three kinds of question, one path: the
//! model's question in words, a dialog the page opened during an action, and files that a file
//! (a flow, a saved run) wants to upload. The question waits on the run record
//! (`run.question`) while the panel, or an automation caller through `answerRun`, answers it
//! with an answer of the same kind; each answer is kept on the step that asked.

use crate::vocab::wire::internally_tagged;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DialogKind {
    Alert,
    Confirm,
    Prompt,
    Beforeunload,
}

impl DialogKind {
    pub(crate) fn button(self, accept: bool) -> &'static str {
        match (self, accept) {
            (DialogKind::Beforeunload, true) => "Leave",
            (DialogKind::Beforeunload, false) => "Stay",
            (_, true) => "OK",
            (_, false) => "Cancel",
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            DialogKind::Alert => "alert",
            DialogKind::Confirm => "confirm",
            DialogKind::Prompt => "prompt",
            DialogKind::Beforeunload => "beforeunload (leave the page?)",
        }
    }
}

/// A dialog the page holds open (CDP `Page.javascriptDialogOpening`). Its text is the page's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageDialog {
    #[serde(rename = "type")]
    pub kind: DialogKind,
    #[serde(default)]
    pub message: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub default_prompt: String,
    #[serde(default)]
    pub url: String,
}

internally_tagged! {
    tag = "kind", rename_all = "camelCase", name = "Question";
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub enum Question {
        /// The model needs something only the person can say; answered in words.
        Text { text: String },
        /// The page opened a dialog during an action: OK or Cancel (and, for a prompt, its text).
        PageDialog { dialog: PageDialog },
        /// Files a file (a flow, a saved run) names for upload, not the person: allow or refuse.
        Upload { paths: Vec<String> },
    }
}

internally_tagged! {
    tag = "kind", rename_all = "camelCase", name = "Answer";
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub enum Answer {
        Text {
            text: String,
        },
        /// OK (`accept`) or Cancel; `text`: what a prompt dialog gets (none: the page's default).
        Dialog {
            accept: bool,
            #[serde(default, skip_serializing_if = "Option::is_none")]
            text: Option<String>,
        },
        Upload {
            allow: bool,
        },
    }
}

impl Answer {
    /// Whether this answers `question` (a text for a text, a choice for a dialog, …).
    pub fn fits(&self, question: &Question) -> bool {
        matches!(
            (self, question),
            (Answer::Text { .. }, Question::Text { .. })
                | (Answer::Dialog { .. }, Question::PageDialog { .. })
                | (Answer::Upload { .. }, Question::Upload { .. })
        )
    }
}

/// Who gave an answer the record keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AnsweredBy {
    /// The person, in the panel (or an automation caller through `answer`).
    Person,
    /// The run's own settings: its dialog answer, or its upload folder.
    Setting,
    /// Nobody could be asked (a run without a person): the safe answer was given.
    Nobody,
}

/// A question a step put, its answer and who gave it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asked {
    pub question: Question,
    pub answer: Answer,
    pub by: AnsweredBy,
}

/// `run.question` as kept: the question, or (in runs saved before questions had kinds) its text.
/// Read through a Value, not serde's untagged buffering (see `vocab::wire`).
pub(crate) mod stored {
    use super::Question;
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Question>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(Question::Text { text })),
            Some(typed) => {
                crate::vocab::objects::from_value::<Question>(typed).map(Some).map_err(serde::de::Error::custom)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::record::Run;
    use serde_json::json;

    #[test]
    fn questions_and_answers_cross_as_tagged_json() {
        let q = Question::PageDialog {
            dialog: PageDialog {
                kind: DialogKind::Prompt,
                message: "Your name?".into(),
                default_prompt: "Ada".into(),
                url: "https://x.org/".into(),
            },
        };
        assert_eq!(
            serde_json::to_value(&q).unwrap(),
            json!({"kind": "pageDialog", "dialog": {"type": "prompt", "message": "Your name?", "defaultPrompt": "Ada", "url": "https://x.org/"}})
        );
        assert_eq!(
            serde_json::to_value(Question::Upload { paths: vec!["/etc/hostname".into()] }).unwrap(),
            json!({"kind": "upload", "paths": ["/etc/hostname"]})
        );
        let a: Answer = serde_json::from_value(json!({"kind": "dialog", "accept": true, "text": "Grace"})).unwrap();
        assert_eq!(a, Answer::Dialog { accept: true, text: Some("Grace".into()) });
        assert!(a.fits(&q) && !a.fits(&Question::Text { text: "?".into() }));
        let allow: Answer = serde_json::from_value(json!({"kind": "upload", "allow": false})).unwrap();
        assert!(allow.fits(&Question::Upload { paths: vec![] }));
    }

    #[test]
    fn a_run_saved_with_a_plain_question_still_reads() {
        let mut run = serde_json::to_value(Run::new("r".into(), "x", 0.0)).unwrap();
        run["question"] = json!("Which milk?");
        let run: Run = serde_json::from_value(run).unwrap();
        assert_eq!(run.question, Some(Question::Text { text: "Which milk?".into() }));
        let again: Run = serde_json::from_value(serde_json::to_value(&run).unwrap()).unwrap();
        assert_eq!(again.question, run.question);
    }
}
