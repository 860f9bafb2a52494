// Documents and files counted as billed (issue 28, point 7; SPEC R1.6b): a
// 1 MB PDF counted per page, in every shape a host hands it over, never as
// its base64 or byte-array text (before: 333,361 tokens as an Anthropic
// base64 document, 221,031 from a Buffer, 728,781 from a Uint8Array).
import { test } from "node:test";
import assert from "node:assert/strict";

import { Engine } from "context-compaction";
import { createEngine } from "context-compaction/ai-sdk";
import { chatEngine, responsesEngine } from "context-compaction/openai";

/** A 3-page PDF of about 1 MB: three page objects and an image stream. */
function pdf() {
  const head = Buffer.from(
    "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >> endobj\n" +
      "3 0 obj << /Type /Page /Parent 2 0 R /Resources << /XObject << /Im1 6 0 R >> >> >> endobj\n" +
      "4 0 obj <</Type/Page/Parent 2 0 R>> endobj\n5 0 obj << /Type /Page /Parent 2 0 R >> endobj\n" +
      "6 0 obj << /Type /XObject /Subtype /Image /Width 1000 /Height 1000 /Length 1000000 >> stream\n",
  );
  const image = Buffer.alloc(1_000_000);
  for (let i = 0; i < image.length; i++) image[i] = (i * 7919) % 251;
  return Buffer.concat([head, image, Buffer.from("\nendstream endobj\n%%EOF\n")]);
}

const bytes = pdf();
const base64 = bytes.toString("base64");
const PAGES = 3;

// The package's default settings: the uncalibrated margin (a provider
// counting text above chars/4, see uncalibrated-margin.test.mjs) is kept on
// text only; a document's figure is what the provider bills.
const settings = { window: 200_000 };

test("the uncalibrated margin leaves documents and images out: the same figure with it and without", () => {
  const figure = (extra) => {
    const engine = new Engine({ ...settings, ...extra });
    try {
      engine.append({
        role: "user",
        content: [
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: base64 } },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
        ],
      });
      return engine.count().tokens;
    } finally {
      engine.free();
    }
  };
  const [withMargin, without] = [figure({}), figure({ uncalibratedMarginPct: 0 })];
  assert.equal(withMargin, without, `${withMargin} with the margin, ${without} without`);
  // Text still keeps it: 15 % over the plain estimate.
  const text = (extra) => {
    const engine = new Engine({ ...settings, ...extra });
    engine.append({ role: "user", content: "fn f(x: u32) -> u32 { x + 1 } ".repeat(200) });
    const tokens = engine.count().tokens;
    engine.free();
    return tokens;
  };
  assert.ok(text({}) >= text({ uncalibratedMarginPct: 0 }) * 1.14, `${text({})} vs ${text({ uncalibratedMarginPct: 0 })}`);
});

test("an Anthropic base64 PDF document: its pages, not its base64", () => {
  const engine = new Engine(settings);
  engine.append({ role: "user", content: [{ type: "text", text: "Summarise this." }] });
  const before = engine.count().tokens;
  engine.append({
    role: "user",
    content: [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: base64 } }, { type: "text", text: "Now." }],
  });
  const pdfTokens = engine.count().tokens - before;
  assert.ok(pdfTokens < 10_000, `${pdfTokens}`);
  assert.ok(pdfTokens >= PAGES * 1_500, `${pdfTokens}: at least 1,500 a page`);
  // A URL document: one stated figure.
  const url = new Engine(settings);
  url.append({ role: "user", content: [{ type: "document", source: { type: "url", url: "https://example.com/report.pdf" } }] });
  assert.ok(url.count().tokens < 10_000, `${url.count().tokens}`);
  engine.free();
  url.free();
});

test("the AI SDK's file part from a Buffer, a Uint8Array, base64 and a URL: under 10k each", () => {
  const shapes = {
    Buffer: bytes,
    Uint8Array: new Uint8Array(bytes),
    base64,
    "data URL": `data:application/pdf;base64,${base64}`,
    URL: new URL("https://example.com/report.pdf"),
  };
  for (const [name, data] of Object.entries(shapes)) {
    const engine = createEngine(settings);
    const file = { role: "user", content: [{ type: "file", data, mediaType: "application/pdf", filename: "report.pdf" }, { type: "text", text: "Summarise." }] };
    engine.append(file);
    const tokens = engine.count().tokens;
    assert.ok(tokens < 10_000, `${name}: ${tokens}`);
    assert.ok(tokens > 1_000, `${name}: ${tokens}`);
    assert.equal(engine.messages()[0], file, `${name}: the caller's own object comes back`);
    engine.free();
  }
});

test("OpenAI's file parts (Chat Completions `file`, Responses `input_file`): under 10k", () => {
  const dataUrl = `data:application/pdf;base64,${base64}`;
  const chat = chatEngine(settings);
  chat.append({ role: "user", content: [{ type: "file", file: { filename: "report.pdf", file_data: dataUrl } }, { type: "text", text: "Summarise." }] });
  assert.ok(chat.count().tokens < 10_000, `${chat.count().tokens}`);
  const responses = responsesEngine(settings);
  responses.append({ role: "user", content: [{ type: "input_file", filename: "report.pdf", file_data: dataUrl }, { type: "input_text", text: "Summarise." }] });
  assert.ok(responses.count().tokens < 10_000, `${responses.count().tokens}`);
  chat.free();
  responses.free();
});
