// Building the page from data with the dealer display's helpers (nodes with text, never HTML from the feed),
// links that keep the token, the socket and the start of a page.
import { setLanguage } from "./text.js";

export { $, el } from "/display/dom.js";

// Keeps the token and the language when a link leaves the page.
export function withQuery(path, params) {
  const query = new URLSearchParams();
  for (const name of ["pit", "lang"]) if (params.get(name)) query.set(name, params.get(name));
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

// The socket of this page: reconnects with a capped backoff, gives up on a silent server after three keepalives.
export function follow(params, table, onMessage, onConnection) {
  let socket = null;
  let attempt = 0;
  let lastHeard = 0;
  let keepalive = 5;
  const connect = () => {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const query = new URLSearchParams();
    if (params.get("pit")) query.set("pit", params.get("pit"));
    if (table) query.set("table", table);
    socket = new WebSocket(`${scheme}//${location.host}/ws?${query}`);
    const mine = socket;
    socket.onopen = () => { attempt = 0; lastHeard = Date.now(); onConnection("connected"); };
    socket.onmessage = (event) => {
      lastHeard = Date.now();
      const message = JSON.parse(event.data);
      if (message.type === "hello") keepalive = message.keepalive_s || keepalive;
      onMessage(message);
    };
    socket.onclose = () => {
      if (socket !== mine) return;
      onConnection("disconnected");
      attempt += 1;
      setTimeout(connect, Math.min(5000, 250 * 2 ** Math.min(attempt, 5)));
    };
  };
  setInterval(() => {
    if (socket && socket.readyState === WebSocket.OPEN && Date.now() - lastHeard > 3000 * keepalive) socket.close();
  }, 1000);
  connect();
}

// Runs a pit page: the FR/EN buttons (or ?lang=) choose the language, the server's hello gives the floor's;
// `receive(message)` takes the other messages and says whether the page is to be drawn again.
export function runPage(params, table, state, receive, render) {
  for (const button of document.querySelectorAll("#lang button")) {
    button.addEventListener("click", () => { setLanguage({ choice: button.dataset.lang }); render(); });
  }
  if (params.get("lang")) setLanguage({ choice: params.get("lang") });
  render();
  const onMessage = (message) => {
    if (message.type === "hello") setLanguage({ floor: message.language });
    else if (!receive(message)) return;
    render();
  };
  follow(params, table, onMessage, (connection) => { state.connection = connection; render(); });
}
