//! The core's words in the person's language: errors, step captions and notes, report and
//! export comments, GIF captions. Plain data: one table per language, `{name}` placeholders.
//!
//! What the model reads (prompts, the history of a run) stays English whatever the person
//! speaks; this catalog is only for what a person reads.

use serde::{Deserialize, Serialize};
use std::fmt::Display;

/// A language the core speaks; the same names as the extension's `_locales` folders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Lang {
    #[default]
    #[serde(rename = "en")]
    En,
    #[serde(rename = "zh_CN")]
    ZhCn,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::ZhCn];

    fn table(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Lang::En => EN,
            Lang::ZhCn => ZH_CN,
        }
    }

    /// The message `key` as written, placeholders unfilled; English when this language lacks
    /// it (the host test keeps both complete), the key itself when nobody has it.
    pub fn text(self, key: &str) -> &'static str {
        let find =
            |table: &'static [(&'static str, &'static str)]| table.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        find(self.table()).or_else(|| find(EN)).unwrap_or_else(|| {
            debug_assert!(false, "no message {key}");
            ""
        })
    }

    /// The message `key` with its `{name}` placeholders filled from `args`.
    pub fn say(self, key: &str, args: &[(&str, &dyn Display)]) -> String {
        fill(self.text(key), args)
    }
}

/// `{name}` → the argument of that name; a placeholder without one stays as written.
pub fn fill(template: &str, args: &[(&str, &dyn Display)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}').map(|close| (&after[..close], close)) {
            Some((name, close)) if args.iter().any(|(n, _)| *n == name) => {
                let (_, value) = args.iter().find(|(n, _)| *n == name).expect("checked above");
                out.push_str(&value.to_string());
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// English. The texts of errors repeat the `Display` of the error they render (a test checks).
pub const EN: &[(&str, &str)] = &[
    // Run errors (agent::RunError); the key is `error.` + the error's code.
    ("error.page_failed", "{detail}"),
    ("error.page_restricted", "{detail}"),
    ("error.page_debugger", "{detail}"),
    ("error.page_unreadable", "{detail}"),
    ("error.nothing_to_choose_at", "nothing to choose from lies at ({x}, {y})"),
    ("error.no_such_tab", "there is no tab {tab}; the open tabs are {open}"),
    ("error.only_tab", "this is the only tab the run may be on: close it yourself when the run is over"),
    ("error.no_such_option", "[{element}] has no option \u{201c}{option}\u{201d}; its options: {options}"),
    ("error.option_not_shown", "opened [{element}], but no option \u{201c}{option}\u{201d} shows on the page"),
    ("error.text_not_shown", "waited {seconds} s and the page does not show \u{201c}{text}\u{201d}"),
    ("error.text_still_shown", "waited {seconds} s and the page still shows \u{201c}{text}\u{201d}"),
    ("error.check_failed", "the recorded check failed: after {seconds} s the element's {what} reads \u{201c}{seen}\u{201d}, not \u{201c}{expected}\u{201d}"),
    ("check.text", "text"),
    ("check.value", "value"),
    ("error.planner_model_failed", "the planning model {model} failed: {detail}"),
    ("error.actor_model_failed", "the acting model {model}, which finds the planner\u{2019}s targets, failed: {detail}"),
    ("error.model_settings", "model settings: {detail}"),
    ("error.model_key_elsewhere", "the saved API key was entered for {entered_for} and is sent nowhere else: enter the key for {endpoint} in Settings (or remove the saved key if that endpoint needs none)"),
    ("error.model_auth", "the model endpoint answered HTTP {status}: {detail}"),
    ("error.model_http", "the model endpoint answered HTTP {status}: {detail}"),
    ("error.model_unreachable", "could not reach the model endpoint: {detail}"),
    ("error.model_timeout", "the model did not answer within {seconds} s"),
    ("error.model_aborted", "the request was stopped"),
    ("error.model_bad_response", "the model's answer could not be read: {detail}"),
    ("error.model_gave_up", "{last} (gave up after {retries} retries)"),
    ("error.reply_unreadable", "could not read the model's reply: {detail}"),
    ("error.replies_unreadable", "the model's reply could not be read {times} times in a row; last problem: {detail}"),
    ("error.answer_unreadable", "could not read the model's answer: {detail}"),
    ("error.verdict_unreadable", "could not read the model's verdict: {detail}"),
    ("error.element_missing", "element [{target}] does not exist on this page (the description lists {count} elements)"),
    ("error.element_out_of_view", "element [{target}] ({summary}) lies outside the visible area; scroll to it first"),
    ("error.unknown_key", "unknown key \"{key}\""),
    ("error.point_out_of_view", "the point ({x}, {y}) lies outside the visible area ({width}×{height})"),
    ("error.not_an_input", "\"{action}\" is not something Sightline can do on a page"),
    ("error.site_not_allowed", "{address} is outside the sites this run may use ({allowed}); change \u{201c}Allowed sites\u{201d} in Settings to allow it"),
    ("error.secret_unknown", "no secret named \u{201c}{name}\u{201d} is set up{known}; add it under Secrets in Settings"),
    ("error.secret_wrong_site", "the secret \u{201c}{name}\u{201d} is only typed on {sites}, not on {address}"),
    ("error.secret_no_sites", "the secret \u{201c}{name}\u{201d} was not typed: it is bound to no site; set the sites it may be typed on under Secrets in Settings (for a script, SIGHTLINE_SECRET_<NAME>_SITES)"),
    ("error.secret_frame_outside", "the secret \u{201c}{name}\u{201d} was not typed: the field that has focus is in a frame of {address}, outside the sites this run may use ({allowed}); change \u{201c}Allowed sites\u{201d} in Settings to allow it"),
    ("error.secret_no_focus", "the secret \u{201c}{name}\u{201d} was not typed: no field has focus; tap the field it goes into first"),
    ("error.secret_wrong_field", "the secret \u{201c}{name}\u{201d} was not typed: the field that has focus ({field}) is not a password, one-time-code or card field{selector}; tap the right field first, or give \u{201c}{name}\u{201d} a field selector under Secrets in Settings that names this field"),
    ("error.secret_focus_unknown", "the secret \u{201c}{name}\u{201d} was not typed: Sightline could not see which field has focus ({why}); tap the field it goes into and try again"),
    ("error.not_a_web_address", "\u{201c}{address}\u{201d} is not a web address: a flow file or a saved run may only open http and https pages, never local files, scripts or the browser's own pages"),
    ("error.dialog_unanswered", "{detail}"),
    ("error.dialog_stopped", "stopped while the page's dialog waited for an answer (Sightline answered Cancel)"),
    ("error.instruction_empty", "the instruction is empty: say what to do on the page"),
    ("error.loop", "stopped a loop: \"{round}\" ran three times in a row without changing the page"),
    ("error.step_limit", "the instruction was not finished within {max} model calls; try a smaller instruction or raise the step limit"),
    ("error.model_cannot", "the model could not carry out the instruction: {reason}"),
    ("error.needs_input", "the model needs your input: {question}"),
    ("error.action_failed", "{action} failed: {detail}"),
    ("error.task_invalid", "{problem}"),
    ("error.assertion_failed", "assertion failed: {reason}"),
    ("error.still_false", "waited {seconds} s and it still does not hold: {reason}"),
    ("error.not_found", "not found: {reason}"),
    ("error.pointed_at_nothing", "the model pointed at nothing for \u{201c}{what}\u{201d}"),
    ("error.no_such_element", "the model named element [{number}], which the page does not have ({count} elements)"),
    ("error.element_number_unknown", "the page has no element [{number}] now ({count} elements): take a new snapshot"),
    ("error.element_vanished", "{element} disappeared while being scrolled into view"),
    ("error.replay_element_lost", "step {step}: {element} is not on the page any more: neither its XPath nor its locators (role, name, text) find it, and no model is set up to look for it"),
    ("error.element_unreachable", "{element} cannot be scrolled into view"),
    ("error.upload_refused", "you refused the upload of {files}"),
    ("error.upload_outside_folder", "refused the upload of {files}: it lies outside the upload folder {folder}, and nobody is here to allow it"),
    ("error.upload_needs_allow", "refused the upload of {files}: files a flow file or a saved run names are uploaded only when you allow them in the panel, or when they lie inside an upload folder you give the run (scripts/run --upload-dir DIR, or the uploadDir option)"),
    ("error.upload_stopped", "stopped before the upload was allowed"),
    ("error.flow_item", "{title}: {detail}"),
    ("error.flow_items", "{failed} steps failed; the first, {first}"),
    ("error.snapshot_unreadable", "{detail}"),
    ("error.screenshot_unusable", "{detail}"),
    ("error.flow_invalid", "{detail}"),
    ("error.script_not_allowed", "this flow's javascript steps run only once you allow them: run the flow from the panel, read its code and press Allow (a changed file asks again); an agent cannot allow them"),
    ("error.script_failed", "the javascript step failed in the page: {detail}"),
    ("flow.script_consent", "This flow file runs {count} javascript step(s) in the page, with the page's full access (its data, its storage, what you are signed in to). Run them only if you trust this file."),
    ("step.script", "Ran javascript {title}"),
    ("error.prices_invalid", "{detail}"),
    ("error.knowledge_invalid", "{detail}"),
    ("error.env_block_invalid", "{detail}"),
    ("error.trajectory_invalid", "{detail}"),
    ("error.gif_failed", "{detail}"),
    ("run.recorded_title", "Recorded steps on {page}"),
    ("error.run_not_open", "there is no open run {id}: it has ended, or the extension restarted and it was not loaded again"),
    ("error.run_interrupted", "the extension restarted while this run was active; the steps so far are kept"),
    ("error.session_stopped", "the person stopped this agent session in Sightline's panel: its run is kept with every step, ended as stopped. A new call opens a new session; to refuse further calls, the person turns Allow agents off"),
    ("error.call_cancelled", "this call was cancelled before it finished: the steps it took so far are kept in the session's run"),
    ("advice.edit", "you can edit the instruction and run again."),
    ("advice.edit_flow", "you can edit that step in the flow file and run it again."),
    ("advice.flow_invalid", "edit the flow file and run it again."),
    ("advice.trajectory_invalid", "choose a file saved with Save run: this one is not a Sightline run file, or it is damaged."),
    ("advice.model_auth", "check the API key in Settings."),
    ("advice.model_http", "check the base URL and the model name in Settings."),
    ("advice.module_load", "reload Sightline on chrome://extensions; if you built it yourself, run scripts/build again first."),
    ("advice.model_unreachable", "check the base URL in Settings, and that the server is running."),
    ("advice.model_timeout", "the model may be slow: raise the timeout in Settings, or run again."),
    ("advice.planner_model_auth", "check the planning model's API key in Settings (Planning model)."),
    ("advice.planner_model_http", "check the planning model's base URL and model name in Settings (Planning model)."),
    ("advice.planner_model_unreachable", "check the planning model's base URL in Settings (Planning model), and that its server is running."),
    ("advice.step_limit", "split the instruction into smaller ones, or raise the step limit in Settings."),
    ("advice.loop", "say more precisely what should happen, and run again."),
    ("advice.check_failed", "the page no longer shows what you checked while recording. If it changed on purpose, record the check again; otherwise the step before it did not do what it did then."),
    ("advice.replay_element_lost", "record the steps again on the page as it is now, or set up a model in Settings: a replay then asks it where a changed element went."),
    ("advice.page_restricted", "open an ordinary web page in this tab."),
    ("advice.page_debugger", "close DevTools on this tab and run again."),
    ("advice.run_interrupted", "run it again; the steps so far are kept."),
    ("error.tab_not_allowed", "that tab is on a site outside the sites this run may use ({allowed}): its address and title are not shown; change \u{201c}Allowed sites\u{201d} in Settings to allow it"),
    ("error.history_not_allowed", "that page of the tab's history is outside the sites this run may use ({allowed}): it was not opened, and its address is not shown"),
    ("error.run_not_agents", "run {run} is not this agent session's: an agent may stop, export or read only its session's run and the recordings it started"),
    ("error.bad_input", "{detail}"),
    ("error.internal", "{detail}"),
    // Task problems (vocab::tasks::TaskProblem), the task_invalid error's text.
    ("task.empty_locate", "the element description is empty: say which element"),
    ("task.empty_drag_source", "the drag source is empty: say which element"),
    ("task.empty_drop_target", "the drop target is empty: say which element"),
    ("task.no_files", "no file given: list the paths of the files to upload"),
    ("task.relative_path", "\u{201c}{path}\u{201d} is not an absolute path: the browser needs the full path of each file, e.g. /home/me/report.pdf"),
    ("task.no_key", "no key given: say which key to press, e.g. Enter"),
    ("task.empty_query", "the query is empty: say what to read"),
    ("task.empty_question", "the question is empty"),
    ("task.empty_assertion", "the assertion is empty"),
    // Step captions: what each action did, as the timeline shows it.
    ("step.tap", "Tap [{target}]"),
    ("step.input", "Input \"{value}\" into [{target}]"),
    ("step.press", "Press {key}"),
    ("step.scroll", "Scroll {direction}{within}{by}"),
    ("step.scroll_within", " in [{target}]"),
    ("step.scroll_by", " by {distance}px"),
    ("step.tap_at", "Tap at ({x}, {y})"),
    ("step.right_click_at", "Right-click at ({x}, {y})"),
    ("step.double_click_at", "Double-click at ({x}, {y})"),
    ("step.hover_at", "Hover at ({x}, {y})"),
    ("step.drag_at", "Drag from ({x1}, {y1}) to ({x2}, {y2})"),
    ("step.type", "Type \"{value}\""),
    ("step.type_submit", "Type \"{value}\" and press Enter"),
    ("step.scroll_at", "Scroll {direction} at ({x}, {y})"),
    ("step.wait", "Wait {seconds} s"),
    ("step.navigate", "Go to {url}"),
    ("step.ask", "Ask you: {question}"),
    ("step.tool", "Call tool {name}"),
    ("step.double_click", "Double-click [{target}]"),
    ("step.right_click", "Right-click [{target}]"),
    ("step.hover", "Hover [{target}]"),
    ("step.append", "Append \"{value}\" to [{target}]"),
    ("step.clear", "Clear [{target}]"),
    ("step.choose", "Choose \"{option}\" in [{target}]"),
    ("step.choose_at", "Choose \"{option}\" at ({x}, {y})"),
    ("step.scroll_to_edge", "Scroll {direction} to the end{within}"),
    ("step.scroll_to", "Scroll to [{target}]"),
    ("step.drag", "Drag [{from}] to [{to}]"),
    ("step.upload", "Upload {files} with [{target}]"),
    ("step.wait_for", "Wait up to {seconds} s until the page shows \"{text}\""),
    ("step.expect_text", "Check that [{target}] shows \"{expected}\""),
    ("step.expect_value", "Check that [{target}] holds \"{expected}\""),
    ("step.expect_visible", "Check that [{target}] is visible"),
    ("step.wait_gone", "Wait up to {seconds} s until the page no longer shows \"{text}\""),
    ("step.back", "Go back"),
    ("step.forward", "Go forward"),
    ("step.reload", "Reload the page"),
    ("step.open_tab", "Open {url} in a new tab"),
    ("step.switch_tab", "Switch to tab {tab}"),
    ("step.close_tab", "Close this tab"),
    ("step.remember", "Remember: {note}"),
    ("step.remember_data", "Remember {data}"),
    ("step.remember_note_data", "Remember: {note} {data}"),
    ("step.plan", "Plan"),
    ("step.plan_actions", "Plan: {count} action(s)"),
    ("step.plan_actions_done", "Plan: {count} action(s), then done"),
    ("step.locate", "Locate \u{201c}{what}\u{201d}"),
    ("step.read", "Read the page"),
    ("step.check", "Check the page"),
    ("step.check_shown", "Check: the goal is shown"),
    ("step.check_unconfirmed", "Check: not confirmed"),
    ("direction.up", "up"),
    ("direction.down", "down"),
    ("direction.left", "left"),
    ("direction.right", "right"),
    // Step notes.
    ("note.nothing_changed", "nothing on the page changed"),
    ("note.done_refused", "the model said done, but nothing changed: not accepted"),
    ("note.scrolled_into_view", "scrolled into view first"),
    ("note.no_photo", "no screenshot after this step: {reason}"),
    ("note.not_described_unset", "not described by a model: {reason}"),
    ("note.not_described", "not described by the model: {reason}"),
    ("note.description_unread", "the model's description could not be read; the element keeps its summary"),
    ("note.from_cache", "from the cache: no model call"),
    ("note.context_trimmed", "the request was too long for the model's context: sent again with {rounds} earlier round(s) and {screenshots} screenshot(s) left out{lines}"),
    ("note.context_lines", ", and the element list cut to its first {kept} of {of} lines"),
    ("note.from_cache_moved", "from the cache: no model call; a target had moved and was found again"),
    ("note.from_cache_element_moved", "from the cache: no model call; it had moved and was found again"),
    ("note.flow_xpath", "by the flow's XPath: no model call"),
    ("note.by_number", "by its number: no model call"),
    ("note.flow_xpath_missed", "the flow's XPath matched nothing: found again by its description"),
    ("note.you_answered", "you answered: {answer}"),
    ("note.pointed_at", "pointed at ({x}, {y})"),
    ("note.passes", "passes: {reason}"),
    ("note.fails", "fails: {reason}"),
    ("note.left_unrun", "the page changed, so the {count} action(s) planned after this one did not run"),
    ("note.target_gone", "the page changed: [{target}] is no longer shown where the plan saw it, so the {count} action(s) from there did not run"),
    ("note.one_action_per_turn", "one action per turn for this model: {more} more left to the next turn, planned on the page as it is then"),
    ("note.reached_edge", "reached the edge after {count} step(s)"),
    // An agent's calls through sightline-mcp (agent::remote): the session's run and its steps.
    ("agent.session", "Agent session: {agent}"),
    ("agent.unnamed", "an agent"),
    ("agent.call", "Agent: {label}"),
    ("agent.tabs_list", "List the tabs"),
    ("agent.tab_open", "Open a tab"),
    ("agent.tab_open_at", "Open a tab at {url}"),
    ("agent.tab_select", "Select tab {tab}"),
    ("agent.tab_close", "Close tab {tab}"),
    ("agent.tab_close_selected", "Close the selected tab"),
    ("agent.open", "Open {url}"),
    ("agent.go_back", "Go back"),
    ("agent.go_forward", "Go forward"),
    ("agent.reload", "Reload the page"),
    ("agent.snapshot", "Snapshot of the page"),
    ("agent.screenshot", "Screenshot of the page"),
    ("agent.console", "Console messages"),
    ("agent.choose", "Choose \u{201c}{option}\u{201d}"),
    ("agent.record_start", "Start recording the person's steps"),
    ("agent.record_stop", "Stop recording"),
    ("agent.export", "Export the run as {format}"),
    // Run outcomes, as the report and the GIF name them.
    ("status.running", "running"),
    ("status.succeeded", "succeeded"),
    ("status.failed", "failed"),
    ("status.stopped", "stopped"),
    ("status.unconfirmed", "done, not confirmed"),
    // Report (export::report).
    ("report.started", "started {time}"),
    ("report.test", "test: {names}"),
    ("report.took", "took {duration}"),
    ("report.model_calls", "{count} model call(s)"),
    ("report.tokens", "{count} tokens"),
    ("report.result", "Result"),
    ("report.checked", "Checked: the page shows the goal: {reason}"),
    ("report.unconfirmed", "Not confirmed by the page: {reason}"),
    ("report.gathered", "Gathered"),
    ("report.cached", "cached"),
    ("report.found_xpath", "XPath"),
    ("report.model_saw", "what the model saw"),
    ("report.page_after", "the page after this step"),
    ("report.screenshot", "Screenshot: {what}"),
    ("report.screenshot_gone", "(screenshot no longer kept)"),
    ("report.exchange", "Model input and output"),
    ("report.screenshot_above", "[screenshot, shown above]"),
    ("report.reply", "reply"),
    ("report.console", "Console: {count} message(s)"),
    ("report.console_dropped", "{count} more not kept: a step keeps the first messages only"),
    ("report.footer", "Made by Sightline from the run's record."),
    ("report.model_share", "{role} {model}: {calls} model call(s) · {tokens} tokens"),
    ("report.role_planner", "Planner"),
    ("report.role_actor", "Actor"),
    // Exports' comments.
    ("export.exported", "Exported by Sightline: {title}"),
    ("export.replays", "Replays the recorded steps with concrete selectors; no model is needed."),
    (
        "export.midscene_format",
        "Midscene's YAML script format (web: and tasks: of flow: items): run it with Midscene's CLI (midscene FILE.yaml) or Sightline's scripts/run FILE.yaml.",
    ),
    ("export.secrets_from_env", "Secrets come from environment variables: {names}."),
    ("export.no_element", "(no element was recorded for this step)"),
    // GIF captions.
    ("gif.run_ended", "Run {outcome}"),
    ("gif.no_screenshots", "{outcome}: no screenshots were kept"),
];

/// Simplified Chinese.
pub const ZH_CN: &[(&str, &str)] = &[
    ("error.page_failed", "页面出错：{detail}"),
    ("error.page_restricted", "Sightline 不能在此页面上工作：{detail}"),
    ("error.page_debugger", "无法控制此标签页：{detail}"),
    ("error.page_unreadable", "读取页面失败：{detail}"),
    ("error.nothing_to_choose_at", "({x}, {y}) 处没有可选择的控件"),
    ("error.no_such_tab", "没有标签页 {tab}；打开的标签页是 {open}"),
    ("error.only_tab", "这是本次运行唯一可用的标签页：运行结束后请自行关闭"),
    ("error.no_such_option", "[{element}] 没有选项“{option}”；它的选项：{options}"),
    ("error.option_not_shown", "已打开 [{element}]，但页面上没有显示选项“{option}”"),
    ("error.text_not_shown", "已等待 {seconds} 秒，页面仍未显示“{text}”"),
    ("error.text_still_shown", "已等待 {seconds} 秒，页面仍显示“{text}”"),
    ("error.check_failed", "录制的检查未通过：等待 {seconds} 秒后，该元素的{what}为“{seen}”，而不是“{expected}”"),
    ("check.text", "文本"),
    ("check.value", "值"),
    ("error.planner_model_failed", "规划模型 {model} 出错：{detail}"),
    ("error.actor_model_failed", "执行模型 {model}（为规划模型定位目标）出错：{detail}"),
    ("error.model_settings", "模型设置有误：{detail}"),
    ("error.model_key_elsewhere", "保存的 API 密钥是为 {entered_for} 输入的，不会发送到其他地址：请在设置中为 {endpoint} 输入密钥（如果该端点不需要密钥，请删除已保存的密钥）"),
    ("error.model_auth", "模型端点拒绝了请求（HTTP {status}）：{detail}"),
    ("error.model_http", "模型端点返回 HTTP {status}：{detail}"),
    ("error.model_unreachable", "无法连接模型端点：{detail}"),
    ("error.model_timeout", "模型在 {seconds} 秒内没有回答"),
    ("error.model_aborted", "请求已停止"),
    ("error.model_bad_response", "无法读取模型的回答：{detail}"),
    ("error.model_gave_up", "{last}（重试 {retries} 次后放弃）"),
    ("error.reply_unreadable", "无法读取模型的回复：{detail}"),
    ("error.replies_unreadable", "模型的回复连续 {times} 次无法读取；最后一次的问题：{detail}"),
    ("error.answer_unreadable", "无法读取模型的答案：{detail}"),
    ("error.verdict_unreadable", "无法读取模型的判断：{detail}"),
    ("error.element_missing", "此页面上没有元素 [{target}]（描述中共列出 {count} 个元素）"),
    ("error.element_out_of_view", "元素 [{target}]（{summary}）在可见区域之外；请先滚动到它"),
    ("error.unknown_key", "未知按键“{key}”"),
    ("error.point_out_of_view", "点 ({x}, {y}) 在可见区域（{width}×{height}）之外"),
    ("error.not_an_input", "“{action}”不是 Sightline 能在页面上执行的操作"),
    ("error.site_not_allowed", "{address} 不在此次运行允许使用的网站之内（{allowed}）；如需允许，请在设置中修改“允许的网站”"),
    ("error.secret_unknown", "没有名为“{name}”的密钥{known}；请在设置的“密钥”中添加"),
    ("error.secret_wrong_site", "密钥“{name}”只在 {sites} 上输入，不在 {address} 上输入"),
    ("error.secret_no_sites", "密钥“{name}”未输入：它没有指定任何网站；请在设置的“密钥”中为它指定可以输入的网站（脚本中：SIGHTLINE_SECRET_<NAME>_SITES）"),
    ("error.secret_frame_outside", "密钥“{name}”未输入：获得焦点的字段位于 {address} 的框架中，不在此次运行允许使用的网站之内（{allowed}）；如需允许，请在设置中修改“允许的网站”"),
    ("error.secret_no_focus", "密钥“{name}”未输入：没有字段获得焦点；请先点击要输入的字段"),
    ("error.secret_wrong_field", "密钥“{name}”未输入：获得焦点的字段（{field}）不是密码、一次性验证码或银行卡字段{selector}；请先点击正确的字段，或在设置的“密钥”中为“{name}”指定能选中此字段的选择器"),
    ("error.secret_focus_unknown", "密钥“{name}”未输入：Sightline 无法确定哪个字段获得了焦点（{why}）；请点击要输入的字段后重试"),
    ("error.not_a_web_address", "“{address}”不是网址：流程文件或保存的运行只能打开 http 和 https 页面，不能打开本地文件、脚本或浏览器自身的页面"),
    ("error.dialog_unanswered", "页面的对话框无人回答：{detail}"),
    ("error.dialog_stopped", "页面的对话框等待回答时运行被停止（Sightline 已点击“取消”）"),
    ("error.instruction_empty", "指令为空：请说明要在页面上做什么"),
    ("error.loop", "已停止循环：“{round}”连续执行三次，页面没有任何变化"),
    ("error.step_limit", "在 {max} 次模型调用内未完成指令；请尝试更小的指令，或提高步数上限"),
    ("error.model_cannot", "模型无法完成该指令：{reason}"),
    ("error.needs_input", "模型需要你的输入：{question}"),
    ("error.action_failed", "{action} 失败：{detail}"),
    ("error.task_invalid", "{problem}"),
    ("error.assertion_failed", "断言不成立：{reason}"),
    ("error.still_false", "已等待 {seconds} 秒，条件仍不成立：{reason}"),
    ("error.not_found", "未找到：{reason}"),
    ("error.pointed_at_nothing", "模型没有为“{what}”指出任何位置"),
    ("error.no_such_element", "模型指定了元素 [{number}]，但页面上没有该元素（共 {count} 个元素）"),
    ("error.element_number_unknown", "页面上现在没有元素 [{number}]（共 {count} 个元素）：请重新获取快照"),
    ("error.element_vanished", "{element} 在滚动到可见区域时消失了"),
    ("error.replay_element_lost", "第 {step} 步：页面上已找不到{element}：它的 XPath 和定位方式（角色、名称、文字）都找不到它，也没有设置可用来查找它的模型"),
    ("error.element_unreachable", "{element} 无法滚动到可见区域"),
    ("error.upload_refused", "你拒绝了上传 {files}"),
    ("error.upload_outside_folder", "已拒绝上传 {files}：它不在上传文件夹 {folder} 中，且没有人可以允许"),
    ("error.upload_needs_allow", "已拒绝上传 {files}：流程文件或保存的运行所指定的文件，只有在你于面板中允许、或位于你为运行指定的上传文件夹（scripts/run --upload-dir DIR 或 uploadDir 选项）中时才会上传"),
    ("error.upload_stopped", "在允许上传之前已停止"),
    ("error.flow_item", "{title}：{detail}"),
    ("error.flow_items", "{failed} 个步骤失败；第一个：{first}"),
    ("error.snapshot_unreadable", "无法读取页面快照：{detail}"),
    ("error.screenshot_unusable", "截图无法使用：{detail}"),
    ("error.flow_invalid", "流程文件有误：{detail}"),
    ("error.script_not_allowed", "此流程的 javascript 步骤须经你允许才会运行：请在面板中运行该流程，阅读其代码后点击“允许”（文件改动后会再次询问）；代理无法允许它们"),
    ("error.script_failed", "javascript 步骤在页面中失败：{detail}"),
    ("flow.script_consent", "此流程文件会在页面中运行 {count} 个 javascript 步骤，拥有页面的全部权限（页面数据、存储以及你已登录的内容）。仅在你信任此文件时才运行。"),
    ("step.script", "运行了 javascript {title}"),
    ("error.prices_invalid", "价格表有误：{detail}"),
    ("error.knowledge_invalid", "站点知识有误：{detail}"),
    ("error.env_block_invalid", "无法使用粘贴的变量：{detail}"),
    ("error.trajectory_invalid", "无法重放保存的运行：{detail}"),
    ("error.gif_failed", "无法生成 GIF：{detail}"),
    ("run.recorded_title", "在 {page} 上录制的步骤"),
    ("error.run_not_open", "没有打开的运行 {id}：它已结束，或扩展重启后未再载入"),
    ("error.run_interrupted", "此运行进行时扩展已重启；已完成的步骤均已保留"),
    ("error.session_stopped", "用户已在 Sightline 面板中停止了此智能体会话：运行已停止，所有步骤均已保留。新的调用会开启新的会话；如要拒绝之后的调用，用户可关闭“允许智能体”"),
    ("error.call_cancelled", "此调用在完成前已被取消：已执行的步骤保留在会话的运行中"),
    ("advice.edit", "可以修改指令后再运行。"),
    ("advice.edit_flow", "可以在流程文件中修改该步骤后再运行。"),
    ("advice.flow_invalid", "请修改流程文件后再运行。"),
    ("advice.trajectory_invalid", "请选择用“保存运行”保存的文件：此文件不是 Sightline 的运行文件，或已损坏。"),
    ("advice.model_auth", "请在设置中检查 API 密钥。"),
    ("advice.model_http", "请在设置中检查基础 URL 和模型名称。"),
    ("advice.module_load", "请在 chrome://extensions 重新加载 Sightline；如果是自己构建的，请先重新运行 scripts/build。"),
    ("advice.model_unreachable", "请在设置中检查基础 URL，并确认服务器正在运行。"),
    ("advice.model_timeout", "模型可能较慢：请在设置中提高超时时间，或再运行一次。"),
    ("advice.planner_model_auth", "请在设置的“规划模型”中检查规划模型的 API 密钥。"),
    ("advice.planner_model_http", "请在设置的“规划模型”中检查规划模型的基础 URL 和模型名称。"),
    ("advice.planner_model_unreachable", "请在设置的“规划模型”中检查规划模型的基础 URL，并确认其服务器正在运行。"),
    ("advice.step_limit", "请把指令拆成更小的几条，或在设置中提高步数上限。"),
    ("advice.loop", "请更准确地说明要发生什么，然后再运行。"),
    ("advice.check_failed", "页面不再显示录制时检查的内容。如果是有意的改动，请重新录制这项检查；否则是前一步没有像当时那样生效。"),
    ("advice.replay_element_lost", "请在页面当前的样子上重新录制这些步骤，或在设置中配置模型：回放时会请模型找出变了的元素。"),
    ("advice.page_restricted", "请在此标签页中打开一个普通网页。"),
    ("advice.page_debugger", "请关闭此标签页上的开发者工具后再运行。"),
    ("advice.run_interrupted", "请重新运行；已完成的步骤都已保留。"),
    ("error.tab_not_allowed", "该标签页所在的网站不在此次运行允许使用的网站之内（{allowed}）：不显示其地址和标题；如需允许，请在设置中修改“允许的网站”"),
    ("error.history_not_allowed", "标签页历史中的那个页面不在此次运行允许使用的网站之内（{allowed}）：未打开它，也不显示其地址"),
    ("error.run_not_agents", "运行 {run} 不属于此智能体会话：智能体只能停止、导出或读取其会话的运行以及它开始的录制"),
    ("error.bad_input", "{detail}"),
    ("error.internal", "{detail}"),
    ("task.empty_locate", "元素描述为空：请说明是哪个元素"),
    ("task.empty_drag_source", "拖动的起点为空：请说明是哪个元素"),
    ("task.empty_drop_target", "放下的目标为空：请说明是哪个元素"),
    ("task.no_files", "没有给出文件：请列出要上传的文件路径"),
    ("task.relative_path", "“{path}”不是绝对路径：浏览器需要每个文件的完整路径，例如 /home/me/report.pdf"),
    ("task.no_key", "没有给出按键：请说明要按哪个键，例如 Enter"),
    ("task.empty_query", "查询为空：请说明要读取什么"),
    ("task.empty_question", "问题为空"),
    ("task.empty_assertion", "断言为空"),
    ("step.tap", "点击 [{target}]"),
    ("step.input", "在 [{target}] 中输入“{value}”"),
    ("step.press", "按 {key}"),
    ("step.scroll", "向{direction}滚动{within}{by}"),
    ("step.scroll_within", "（在 [{target}] 中）"),
    ("step.scroll_by", " {distance} 像素"),
    ("step.tap_at", "点击 ({x}, {y})"),
    ("step.right_click_at", "右键点击 ({x}, {y})"),
    ("step.double_click_at", "双击 ({x}, {y})"),
    ("step.hover_at", "悬停于 ({x}, {y})"),
    ("step.drag_at", "从 ({x1}, {y1}) 拖动到 ({x2}, {y2})"),
    ("step.type", "键入“{value}”"),
    ("step.type_submit", "键入“{value}”并按 Enter"),
    ("step.scroll_at", "在 ({x}, {y}) 处向{direction}滚动"),
    ("step.wait", "等待 {seconds} 秒"),
    ("step.navigate", "打开 {url}"),
    ("step.ask", "询问你：{question}"),
    ("step.tool", "调用工具 {name}"),
    ("step.double_click", "双击 [{target}]"),
    ("step.right_click", "右键点击 [{target}]"),
    ("step.hover", "悬停于 [{target}]"),
    ("step.append", "在 [{target}] 末尾追加“{value}”"),
    ("step.clear", "清空 [{target}]"),
    ("step.choose", "在 [{target}] 中选择“{option}”"),
    ("step.choose_at", "在 ({x}, {y}) 处选择“{option}”"),
    ("step.scroll_to_edge", "向{direction}滚动到底{within}"),
    ("step.scroll_to", "滚动到 [{target}]"),
    ("step.drag", "把 [{from}] 拖到 [{to}]"),
    ("step.upload", "通过 [{target}] 上传 {files}"),
    ("step.wait_for", "最多等待 {seconds} 秒，直到页面显示“{text}”"),
    ("step.expect_text", "检查 [{target}] 显示“{expected}”"),
    ("step.expect_value", "检查 [{target}] 的值为“{expected}”"),
    ("step.expect_visible", "检查 [{target}] 可见"),
    ("step.wait_gone", "最多等待 {seconds} 秒，直到页面不再显示“{text}”"),
    ("step.back", "后退"),
    ("step.forward", "前进"),
    ("step.reload", "重新加载页面"),
    ("step.open_tab", "在新标签页中打开 {url}"),
    ("step.switch_tab", "切换到标签页 {tab}"),
    ("step.close_tab", "关闭此标签页"),
    ("step.remember", "记下：{note}"),
    ("step.remember_data", "记下 {data}"),
    ("step.remember_note_data", "记下：{note} {data}"),
    ("step.plan", "规划"),
    ("step.plan_actions", "规划：{count} 个操作"),
    ("step.plan_actions_done", "规划：{count} 个操作，然后完成"),
    ("step.locate", "定位“{what}”"),
    ("step.read", "读取页面"),
    ("step.check", "检查页面"),
    ("step.check_shown", "检查：页面显示已达成目标"),
    ("step.check_unconfirmed", "检查：未能确认"),
    ("direction.up", "上"),
    ("direction.down", "下"),
    ("direction.left", "左"),
    ("direction.right", "右"),
    ("note.nothing_changed", "页面没有任何变化"),
    ("note.done_refused", "模型说已完成，但页面没有任何变化：不予接受"),
    ("note.scrolled_into_view", "已先滚动到可见区域"),
    ("note.no_photo", "此步骤之后未能截图：{reason}"),
    ("note.not_described_unset", "未由模型描述：{reason}"),
    ("note.not_described", "模型未能描述：{reason}"),
    ("note.description_unread", "无法读取模型的描述；该元素仍用页面中的说明"),
    ("note.from_cache", "来自缓存：未调用模型"),
    ("note.context_trimmed", "请求超出了模型的上下文长度：已省去 {rounds} 轮较早的记录和 {screenshots} 张截图后重新发送{lines}"),
    ("note.context_lines", "，并把元素列表截为前 {kept} 行（共 {of} 行）"),
    ("note.from_cache_moved", "来自缓存：未调用模型；有目标移动了位置，已重新找到"),
    ("note.from_cache_element_moved", "来自缓存：未调用模型；它移动了位置，已重新找到"),
    ("note.flow_xpath", "按流程文件的 XPath 找到：未调用模型"),
    ("note.by_number", "按编号找到：未调用模型"),
    ("note.flow_xpath_missed", "流程文件的 XPath 没有匹配到元素：已按描述重新找到"),
    ("note.you_answered", "你的回答：{answer}"),
    ("note.pointed_at", "指向 ({x}, {y})"),
    ("note.passes", "成立：{reason}"),
    ("note.fails", "不成立：{reason}"),
    ("note.left_unrun", "页面已变化，因此此后计划的 {count} 个操作没有执行"),
    ("note.target_gone", "页面已变化：[{target}] 已不在计划所见之处显示，因此从它起的 {count} 个操作没有执行"),
    ("note.one_action_per_turn", "此模型每轮只执行一个操作：其余 {more} 个留到下一轮，按届时的页面重新规划"),
    ("note.reached_edge", "滚动 {count} 次后到达边缘"),
    ("status.running", "运行中"),
    ("status.succeeded", "成功"),
    ("status.failed", "失败"),
    ("status.stopped", "已停止"),
    ("status.unconfirmed", "已完成，未经确认"),
    ("agent.session", "智能体会话：{agent}"),
    ("agent.unnamed", "一个智能体"),
    ("agent.call", "智能体：{label}"),
    ("agent.tabs_list", "列出标签页"),
    ("agent.tab_open", "打开一个标签页"),
    ("agent.tab_open_at", "在新标签页打开 {url}"),
    ("agent.tab_select", "选择标签页 {tab}"),
    ("agent.tab_close", "关闭标签页 {tab}"),
    ("agent.tab_close_selected", "关闭所选标签页"),
    ("agent.open", "打开 {url}"),
    ("agent.go_back", "后退"),
    ("agent.go_forward", "前进"),
    ("agent.reload", "重新加载页面"),
    ("agent.snapshot", "页面快照"),
    ("agent.screenshot", "页面截图"),
    ("agent.console", "控制台消息"),
    ("agent.choose", "选择“{option}”"),
    ("agent.record_start", "开始录制用户的操作"),
    ("agent.record_stop", "停止录制"),
    ("agent.export", "将运行导出为 {format}"),
    ("report.started", "开始于 {time}"),
    ("report.test", "测试：{names}"),
    ("report.took", "用时 {duration}"),
    ("report.model_calls", "{count} 次模型调用"),
    ("report.tokens", "{count} 个令牌"),
    ("report.result", "结果"),
    ("report.checked", "已检查：页面显示已达成目标：{reason}"),
    ("report.unconfirmed", "页面未能确认：{reason}"),
    ("report.gathered", "收集到的数据"),
    ("report.cached", "缓存"),
    ("report.found_xpath", "XPath"),
    ("report.model_saw", "模型看到的画面"),
    ("report.page_after", "此步骤之后的页面"),
    ("report.screenshot", "截图：{what}"),
    ("report.screenshot_gone", "（截图已不再保留）"),
    ("report.exchange", "模型的输入与输出"),
    ("report.screenshot_above", "[截图，见上方]"),
    ("report.reply", "回复"),
    ("report.console", "控制台：{count} 条消息"),
    ("report.console_dropped", "另有 {count} 条未保留：每一步只保留最先的消息"),
    ("report.footer", "由 Sightline 根据运行记录生成。"),
    ("report.model_share", "{role} {model}：{calls} 次模型调用 · {tokens} 个令牌"),
    ("report.role_planner", "规划模型"),
    ("report.role_actor", "执行模型"),
    ("export.exported", "由 Sightline 导出：{title}"),
    ("export.replays", "用具体的选择器重放录制的步骤，无需模型。"),
    (
        "export.midscene_format",
        "Midscene 的 YAML 脚本格式（web: 与 tasks: 下的 flow: 步骤）：可用 Midscene 命令行（midscene FILE.yaml）或 Sightline 的 scripts/run FILE.yaml 运行。",
    ),
    ("export.secrets_from_env", "密钥来自环境变量：{names}。"),
    ("export.no_element", "（此步骤没有记录元素）"),
    ("gif.run_ended", "运行{outcome}"),
    ("gif.no_screenshots", "{outcome}：没有保留截图"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn keys(table: &[(&'static str, &str)]) -> BTreeSet<&'static str> {
        table.iter().map(|(k, _)| *k).collect()
    }

    fn placeholders(text: &str) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else { break };
            out.insert(after[..close].to_string());
            rest = &after[close + 1..];
        }
        out
    }

    #[test]
    fn every_key_is_in_both_languages_once_with_the_same_placeholders() {
        for table in [EN, ZH_CN] {
            assert_eq!(keys(table).len(), table.len(), "a key is listed twice");
            for (k, v) in table {
                assert!(!v.trim().is_empty() || k.starts_with("error."), "{k} is empty");
            }
        }
        let (en, zh) = (keys(EN), keys(ZH_CN));
        assert_eq!(en.difference(&zh).collect::<Vec<_>>(), Vec::<&&str>::new(), "missing in zh_CN");
        assert_eq!(zh.difference(&en).collect::<Vec<_>>(), Vec::<&&str>::new(), "missing in en");
        for (k, v) in EN {
            assert_eq!(
                placeholders(v),
                placeholders(Lang::ZhCn.text(k)),
                "{k}: the languages fill different placeholders"
            );
        }
    }

    #[test]
    fn placeholders_are_filled_by_name_and_unknown_ones_stay() {
        assert_eq!(fill("{a} and {b}", &[("b", &2), ("a", &"one")]), "one and 2");
        assert_eq!(fill("{a} {c} {", &[("a", &1)]), "1 {c} {");
        assert_eq!(Lang::ZhCn.say("step.tap", &[("target", &3)]), "点击 [3]");
    }

    #[test]
    fn languages_are_named_as_the_extension_names_them() {
        assert_eq!(serde_json::to_string(&Lang::ZhCn).unwrap(), "\"zh_CN\"");
        assert_eq!(serde_json::from_str::<Lang>("\"en\"").unwrap(), Lang::En);
    }
}
