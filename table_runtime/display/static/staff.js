// The staff on the dealer's screen, where a staff registry rules the table (docs/display.md "Roles"): the dealer
// on shift in the top bar, the login dialog (employee id and own PIN, or a badge at the table's reader), and the
// employee id the supervisor's PIN dialog adds. The server checks every PIN; the page only asks.
import { $ } from "./dom.js";
import { t } from "./text.js";

// The dealer on shift, by name (the display's snapshot names him; the feed's has his id only).
export function renderShift(snapshot, staff) {
  const shift = snapshot && snapshot.shift;
  const badge = $("shift-dealer");
  badge.hidden = !staff && !shift;
  if (badge.hidden) return;
  const dealer = shift && shift.dealer ? (shift.name || shift.dealer) : null;
  badge.textContent = dealer ? t("shift_dealer", { name: dealer }) : t("shift_nobody");
  badge.dataset.dealer = shift && shift.dealer ? shift.dealer : "";
}

export function buildLoginDialog(send, onDone) {
  const error = $("login-error");
  const answer = (result) => {
    if (result.ok) { $("login-dialog").close(); onDone(result); }
    else error.textContent = t("reason_" + (result.reason || "wrong_pin"), { seconds: result.seconds ?? "" }) || result.message;
  };
  $("login-open").addEventListener("click", () => {
    $("login-employee").value = "";
    $("login-pin").value = "";
    error.textContent = "";
    $("login-dialog").showModal();
  });
  $("login-cancel").addEventListener("click", () => $("login-dialog").close());
  $("login-send").addEventListener("click", () => {
    const pin = $("login-pin").value;
    $("login-pin").value = "";
    send({ type: "login", employee: $("login-employee").value.trim(), pin }, answer);
  });
  $("logout-send").addEventListener("click", () => send({ type: "logout" }, answer));
}

// What the supervisor's PIN dialog sends with the PIN: his employee id where a staff registry rules the table.
export function credential(staff, pin) {
  return staff ? { employee: $("pin-employee").value.trim(), pin } : { pin };
}
