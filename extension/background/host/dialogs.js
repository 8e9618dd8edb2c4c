// The dialogs seam of a run's host (crate/web/src/host/dialogs.rs): the page dialog holding up
// the run's action (`entry.held`), for the core to decide on and answer.
import { answerDialog } from '../debugger.js';

/** The dialog methods of the host for the run of `entry`. */
export function dialogHost(entry) {
  const { held } = entry;
  return {
    /** The dialog holding up the action, for the core to decide on: `{type, message, defaultPrompt, url}`. */
    openDialog() {
      const d = held.dialog;
      return d && { type: d.type, message: d.message.slice(0, 2000), defaultPrompt: d.defaultPrompt.slice(0, 2000), url: d.url };
    },
    /** The core's answer to the held dialog; resolves once the interrupted work is done or another dialog opens. */
    async answerDialog(accept, promptText) {
      const dialog = held.dialog;
      held.dialog = null;
      if (dialog) await answerDialog(dialog, accept, promptText ?? undefined);
      await entry.untilDoneOrDialog();
    },
  };
}
