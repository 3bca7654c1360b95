// Run in the page by tests/display/test_layout.py: every way the screen can hide what it shows.
// Returns one line per problem: content that overflows its box (cut off, scrolled away or ellipsised),
// anything past the edge of the screen, text (a card's rank among it) covered by another element, and
// text too small to read at arm's length.
(minPx) => {
  const problems = [];
  const name = (node) => {
    const id = node.id ? "#" + node.id : "";
    const cls = typeof node.className === "string" && node.className ? "." + node.className.trim().split(/\s+/).join(".") : "";
    const box = node.closest("[data-box]");
    const where = box ? ` in box ${box.dataset.box}` : "";
    return `${node.tagName.toLowerCase()}${id}${cls}${where} "${(node.innerText || node.textContent || "").trim().slice(0, 40)}"`;
  };
  const visible = (node) => {
    if (!node.checkVisibility({ checkVisibilityCSS: true })) return false;
    const rect = node.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  };
  const width = window.innerWidth;
  const height = window.innerHeight;
  // An open modal dialog (the card or PIN keypad) is all the dealer can touch: it alone is checked then.
  const modal = document.querySelector("dialog[open]");
  const root = modal || document.body;
  const nodes = modal ? [modal, ...modal.querySelectorAll("*")] : [document.documentElement, ...document.body.querySelectorAll("*")];
  for (const node of nodes) {
    if (node !== document.documentElement && !visible(node)) continue;
    const style = getComputedStyle(node);
    if (style.display !== "inline" && style.display !== "contents") {
      if (node.scrollWidth > node.clientWidth + 1) problems.push(`overflows its width (${node.scrollWidth} > ${node.clientWidth}): ${name(node)}`);
      if (node.scrollHeight > node.clientHeight + 1) problems.push(`overflows its height (${node.scrollHeight} > ${node.clientHeight}): ${name(node)}`);
    }
    const rect = node.getBoundingClientRect();
    if (rect.right > width + 1 || rect.bottom > height + 1 || rect.left < -1 || rect.top < -1) {
      problems.push(`past the edge of the screen (${Math.round(rect.left)},${Math.round(rect.top)} - ${Math.round(rect.right)},${Math.round(rect.bottom)}): ${name(node)}`);
    }
  }
  // Text: each line of it must be on top where it is drawn, and large enough.
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text; text = walker.nextNode()) {
    if (!text.textContent.trim()) continue;
    const owner = text.parentElement;
    if (!visible(owner)) continue;
    const size = parseFloat(getComputedStyle(owner).fontSize);
    if (size < minPx) problems.push(`text of ${size} px (under ${minPx}): ${name(owner)}`);
    const range = document.createRange();
    range.selectNodeContents(text);
    for (const line of range.getClientRects()) {
      if (line.width < 1 || line.height < 1) continue;
      const y = line.top + line.height / 2;
      for (const fraction of [0.15, 0.5, 0.85]) {
        const x = line.left + line.width * fraction;
        const hit = document.elementFromPoint(x, y);
        if (hit && hit !== owner && !owner.contains(hit)) {
          problems.push(`covered by ${name(hit)} at ${Math.round(x)},${Math.round(y)}: ${name(owner)}`);
          break;
        }
      }
    }
  }
  return problems;
}
