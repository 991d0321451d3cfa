#!/usr/bin/env python3
"""Drives Wiki publishing in the server PC's Administration screen (Settings → Administration →
Wiki) in the real relay-desktop window over WebDriver (tauri-driver + WebKitWebDriver), against
the in-process server, its privileged actor and its wiki actor (extraction in the worker):

1. fresh data dir, server-mode desktop; the Owner `ryan` gets a password and is activated with
   `relay admin` over the running server's control socket; signed in through the screen, the Wiki
   section shows the library (the built-in Uncategorized category) and "Upload PDFs…";
2. a category "Network" added through the screen;
3. "Upload PDFs…" with the debug-only pick override (RELAY_TEST_WIKI_PICK, in place of the GTK
   file chooser) of two PDFs generated here: a valid three-page PDF with an outline (correct xref
   offsets) and a `%PDF-` header followed by garbage; the queue shows labelled progress bars, the
   first "Ready for review", the second "Failed" with its reason (and still listed after the
   first is published, which completes the batch);
4. the ready upload reviewed (title, category Network, Quick Guide) and published: it is in the
   library table (3 pages, active) and `wiki.library` has it with that category and type;
5. trashed, then restored through the table;
6. in the Knowledge tab the published document opens in the PDF viewer and "Download" saves it
   through the shell's Save As (wiki_save_pdf; the debug-only RELAY_TEST_WIKI_SAVE_DIR names the
   folder in place of the GTK dialog): the saved file has the published bytes (SHA-256 equal to
   the record's checksum), is owner-only, and the viewer says "Saved as noc-runbook.pdf.";
   the same command with bytes that do not match their checksum is refused and writes nothing;
7. no path of the chosen files or of the save folder (nor the Owner's password) in the page's
   HTML, the driver/app log or DATA/logs/relay.log.

Run under Xvfb: xvfb-run -a python3 tests/desktop/webdriver_wiki_admin.py DESKTOP_BIN RELAY_BIN
(DESKTOP_WIKI_SCREENSHOT=PATH saves a screenshot of the published library.)
"""
import re
import base64
import hashlib
import os
import shutil
import stat
import sys
import tempfile
import time

WORK = tempfile.mkdtemp(prefix="relay-desktop-wiki-")
os.environ.setdefault("DESKTOP_WEBDRIVER_LOG", os.path.join(WORK, "webdriver.log"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webdriver_admin  # noqa: E402
from webdriver_admin import admin_sign_in, html, relay_admin, sign_in_app, type_into  # noqa: E402
from webdriver_bridge import (call, click, close_session, invoke, log_text, open_session,  # noqa: E402
                              start_driver, stop_process, texts, wait_for)

# webdriver_admin made its own scratch folder on import; this flow does not use it.
shutil.rmtree(webdriver_admin.WORK, ignore_errors=True)

OWNER_PW = "owner-Pw-4410-wiki-qx"
PDF_DIR = os.path.join(WORK, "chosen-pdfs")
GOOD = os.path.join(PDF_DIR, "noc-runbook.pdf")
BAD = os.path.join(PDF_DIR, "broken-scan.pdf")
SAVE_DIR = os.path.join(WORK, "saved-pdfs")


def literal(text):
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def build_pdf(objects):
    """The file for object bodies numbered from 1 (object 1 the catalog), with a correct
    cross-reference table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body.encode("latin-1") + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def runbook_pdf():
    """Three pages of Helvetica text with an outline: Introduction (page 1) > Scope (page 2),
    then Procedures (page 3)."""
    pages_text = [
        ["Introduction to the NOC runbook", "Read this first before every night shift."],
        ["Scope of the procedures", "Core routers, collectors and the VPN concentrators."],
        ["Procedures: restart the collector", "Stop the service, clear the spool, start it again."],
    ]
    objects = ["", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"]
    page_ids = []
    for lines in pages_text:
        content = "BT /F1 12 Tf 72 720 Td 14 TL\n" + "".join(f"({literal(line)}) Tj T*\n" for line in lines) + "ET\n"
        objects.append(f"<< /Length {len(content)} >>\nstream\n{content}\nendstream")
        stream = len(objects)
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                       f"/Resources << /Font << /F1 3 0 R >> >> /Contents {stream} 0 R >>")
        page_ids.append(len(objects))
    outlines = len(objects) + 1
    intro, scope, procedures = outlines + 1, outlines + 2, outlines + 3
    objects.append(f"<< /Type /Outlines /First {intro} 0 R /Last {procedures} 0 R /Count 3 >>")
    objects.append(f"<< /Title (Introduction) /Parent {outlines} 0 R /Next {procedures} 0 R /First {scope} 0 R "
                   f"/Last {scope} 0 R /Count 1 /Dest [{page_ids[0]} 0 R /Fit] >>")
    objects.append(f"<< /Title (Scope) /Parent {intro} 0 R /Dest [{page_ids[1]} 0 R /XYZ 0 792 0] >>")
    objects.append(f"<< /Title (Procedures) /Parent {outlines} 0 R /Prev {intro} 0 R /Dest [{page_ids[2]} 0 R /Fit] >>")
    kids = " ".join(f"{p} 0 R" for p in page_ids)
    objects[1] = f"<< /Type /Pages /Kids [{kids}] /Count {len(page_ids)} >>"
    objects[0] = f"<< /Type /Catalog /Pages 2 0 R /Outlines {outlines} 0 R >>"
    return build_pdf(objects)


def garbage_pdf():
    """A `%PDF-` header followed by 8 KiB of deterministic garbage."""
    out, state = bytearray(b"%PDF-1.7\n"), 0x25455044
    for _ in range(8192):
        state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
        out.append(state >> 24)
    return bytes(out)


def wiki_message(sid):
    return " ".join(texts(sid, "[data-testid=admin-wiki-message]"))


def wait_wiki_message(sid, what, needle, timeout=60):
    return wait_for(f"{what}: {needle!r}", lambda: needle in wiki_message(sid) and wiki_message(sid), timeout=timeout)


def library(sid):
    res = invoke(sid, "admin_command", {"command": "wiki.library", "payload": {}, "expectedRevision": None})
    assert "ok" in res, f"wiki.library refused: {res}"
    return res["ok"]


def upload_row(sid, upload_id, css=""):
    return f'[data-testid=admin-wiki-upload][data-upload="{upload_id}"] {css}'.strip()


def doc_row(doc_id, css=""):
    return f'[data-testid=admin-wiki-document][data-document="{doc_id}"] {css}'.strip()


def attribute(sid, css, name):
    script = "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null;"
    return call("POST", f"/session/{sid}/execute/sync", {"script": script, "args": [css, name]})["value"]


def enabled(sid, css):
    script = "const e = document.querySelector(arguments[0]); return !!e && !e.disabled;"
    return call("POST", f"/session/{sid}/execute/sync", {"script": script, "args": [css]})["value"]


def uploads(sid):
    """(upload id, file name, state, state text, progress label) of every queued upload."""
    script = """return [...document.querySelectorAll('[data-testid=admin-wiki-upload]')].map(li => [
        li.dataset.upload, li.querySelector('[data-testid=admin-wiki-upload-name]').textContent, li.dataset.state,
        li.querySelector('[data-testid=admin-wiki-upload-state]').textContent,
        (li.querySelector('progress') || {getAttribute: () => null}).getAttribute('aria-label')]);"""
    return call("POST", f"/session/{sid}/execute/sync", {"script": script, "args": []})["value"]


def sign_in_owner(sid, data_dir):
    sign_in_app(sid, data_dir)
    admin_sign_in(sid, "ryan", OWNER_PW)
    wait_for("the Owner's session", lambda: texts(sid, "[data-testid=admin-session]"), timeout=30)
    wait_for("the Wiki section's library", lambda: texts(sid, "[data-testid=admin-wiki-upload-button]")
             and texts(sid, "[data-testid=admin-wiki-category-name]"), timeout=30)
    names = texts(sid, "[data-testid=admin-wiki-category-name]")
    assert names == ["Uncategorized"], names
    print("ok   signed in as the Owner: the Wiki section shows the library with Uncategorized and Upload PDFs…")


def add_category(sid):
    type_into(sid, "[data-testid=admin-wiki-category-new]", "Network")
    click(sid, "[data-testid=admin-wiki-category-add]")
    wait_wiki_message(sid, "the new category", "Category “Network” added.")
    network = next(c for c in library(sid)["categories"] if c["name"] == "Network")
    print(f"ok   category Network added ({network['id']})")
    return network["id"]


def upload_both(sid):
    click(sid, "[data-testid=admin-wiki-upload-button]")
    done = wait_for("both uploads finished", lambda: (lambda rows: len(rows) == 2 and all(r[2] in ("ready", "failed") for r in rows)
                                                       and rows)(uploads(sid)), timeout=120)
    by_name = {r[1]: r for r in done}
    good, bad = by_name["noc-runbook.pdf"], by_name["broken-scan.pdf"]
    assert good[2] == "ready" and good[3] == "Ready for review", good
    assert good[4] == "noc-runbook.pdf: Ready for review", f"the progress bar's label: {good}"
    assert bad[2] == "failed" and bad[3].startswith("Failed: ") and len(bad[3]) > len("Failed: "), bad
    assert bad[4] == "broken-scan.pdf: Failed", f"the progress bar's label: {bad}"
    wait_wiki_message(sid, "the upload summary", "2 files uploaded: 1 ready for review, 1 failed.")
    title = call("GET", f"/session/{sid}/element/{webdriver_admin.element(sid, upload_row(sid, good[0], '[data-testid=admin-wiki-review-title]'))}"
                 f"/property/value")["value"]
    assert title == "Noc runbook", f"the review's title from the file name: {title!r}"
    print(f"ok   uploaded through the pick override: noc-runbook.pdf ready for review (title {title!r}), "
          f"broken-scan.pdf {bad[3]!r}")
    return good[0]


def publish(sid, upload_id, network_id):
    type_into(sid, upload_row(sid, upload_id, "[data-testid=admin-wiki-review-title]"), "NOC runbook")
    click(sid, upload_row(sid, upload_id, f'[data-testid=admin-wiki-review-category] option[value="{network_id}"]'))
    click(sid, upload_row(sid, upload_id, '[data-testid=admin-wiki-review-type] option[value="cheatsheet"]'))
    click(sid, upload_row(sid, upload_id, "[data-testid=admin-wiki-publish]"))
    wait_wiki_message(sid, "the publish notice", "Published “NOC runbook”.")
    doc = next(d for d in library(sid)["documents"] if d["title"] == "NOC runbook")
    assert (doc["categoryId"], doc["documentType"], doc["pageCount"], doc["lifecycleState"]) == (network_id, "cheatsheet", 3, "active"), doc
    row = wait_for("the library row", lambda: texts(sid, doc_row(doc["id"])), timeout=20)[0]
    assert "NOC runbook" in row and "Network" in row and "Quick Guide" in row and "Active" in row, row
    assert attribute(sid, upload_row(sid, upload_id), "data-state") == "published"
    states = sorted((r[1], r[2]) for r in uploads(sid))
    assert states == [("broken-scan.pdf", "failed"), ("noc-runbook.pdf", "published")], f"the queue after publishing: {states}"
    print(f"ok   published 'NOC runbook' (Network, Quick Guide, 3 pages): in the library table and in wiki.library")
    return doc["id"]


def trash_and_restore(sid, doc_id):
    # Indexing writes the document (a new revision) a moment after publishing. Under load it can
    # land after the table read its row: Trash at the older revision is then refused as changed
    # meanwhile and the table reloads, so the operator clicks again. Wait for indexing to settle
    # on the server, then allow that refusal (the 18:31 CI run met it). A click that lands while
    # the table re-renders after that revision's realtime event (its buttons disabled for the
    # reload) does nothing and says nothing; the operator clicks again then too (the 21:08 CI run
    # met it under load). Any other message fails at once.
    wait_for("indexing settled", lambda: next(
        d for d in library(sid)["documents"] if d["id"] == doc_id)["searchIndexState"] != "pending", timeout=180)
    trashed = lambda: attribute(sid, doc_row(doc_id), "data-state") == "trashed"
    trash_button = doc_row(doc_id, "[data-testid=admin-wiki-trash]")
    for attempt in range(3):
        # The screen disables its buttons while a privileged call or a library read runs; an
        # operator clicks an enabled button.
        wait_for("an enabled Trash button", lambda: enabled(sid, trash_button), timeout=60)
        before = wiki_message(sid)
        click(sid, trash_button)
        try:
            wait_for("the trashed row", trashed, timeout=20)
            break
        except AssertionError:
            message = wiki_message(sid)
            refused_as_stale = bool(re.search(r"changed meanwhile|stale", message, re.I))
            if attempt == 2 or (message != before and not refused_as_stale):
                raise
            state = attribute(sid, doc_row(doc_id), "data-state")
            print(f"note Trash did not take on click {attempt + 1} (message {message!r}, row {state!r}, "
                  f"button enabled {enabled(sid, trash_button)}); clicking again")
    assert "Trashed" in texts(sid, doc_row(doc_id, "[data-testid=admin-wiki-document-state]"))
    click(sid, doc_row(doc_id, "[data-testid=admin-wiki-restore]"))
    wait_for("the restored row", lambda: attribute(sid, doc_row(doc_id), "data-state") == "active", timeout=30)
    doc = next(d for d in library(sid)["documents"] if d["id"] == doc_id)
    assert doc["lifecycleState"] == "active", doc
    print(f"ok   trashed, then restored through the table (revision {doc['revision']})")


def download_from_knowledge(sid, doc):
    click(sid, "[data-testid=nav-knowledge]")
    click(sid, f'[data-testid=knowledge-document][data-id="{doc["id"]}"]')
    wait_for("the verified PDF", lambda: call("POST", f"/session/{sid}/execute/sync", {
        "script": "const b = document.querySelector('[data-testid=pdf-download]'); return !!b && !b.disabled;",
        "args": []})["value"], timeout=60)
    click(sid, "[data-testid=pdf-download]")
    note = wait_for("the save note", lambda: texts(sid, "[data-testid=pdf-save-note]"), timeout=30)[0]
    assert note == "Saved as noc-runbook.pdf.", note
    saved = os.path.join(SAVE_DIR, "noc-runbook.pdf")
    with open(saved, "rb") as f:
        data = f.read()
    assert hashlib.sha256(data).hexdigest() == doc["checksum"], "the saved file is not the published PDF"
    with open(GOOD, "rb") as f:
        assert data == f.read(), "the saved bytes differ from the uploaded PDF"
    assert stat.S_IMODE(os.stat(saved).st_mode) == 0o600, oct(os.stat(saved).st_mode)
    assert os.listdir(SAVE_DIR) == ["noc-runbook.pdf"], os.listdir(SAVE_DIR)
    # The shell checks the bytes again: a body that does not match its checksum is refused.
    refused = call("POST", f"/session/{sid}/execute/async", {"script": """
        const done = arguments[arguments.length - 1];
        const bytes = new TextEncoder().encode('%PDF-1.7 tampered');
        window.__TAURI__.core.invoke('wiki_save_pdf', bytes, {headers: {
            'x-relay-file-name': 'tampered.pdf', 'x-relay-checksum': arguments[0]}})
          .then((r) => done({ok: r}), (e) => done({err: e}));""", "args": [doc["checksum"]]})["value"]
    assert refused.get("err", {}).get("code") == "rejected" and "checksum mismatch" in refused["err"]["message"], refused
    assert os.listdir(SAVE_DIR) == ["noc-runbook.pdf"], "a refused save wrote a file"
    click(sid, "[data-testid=pdf-viewer] [aria-label=Close]")
    print("ok   Knowledge tab: the viewer's Download saved the published PDF (same SHA-256, 0600); tampered bytes refused")


def no_paths(sid, data_dir):
    page = html(sid)
    with open(os.path.join(data_dir, "logs", "relay.log"), encoding="utf-8", errors="replace") as f:
        logs = log_text() + f.read()
    for needle in (PDF_DIR, GOOD, BAD, SAVE_DIR, WORK):
        assert needle not in page, f"{needle} is in the page HTML"
    assert OWNER_PW not in page and OWNER_PW not in logs, "the Owner's password leaked"
    assert PDF_DIR not in logs and SAVE_DIR not in logs, "a chosen file's or the save folder's path is in a log"
    print("ok   no chosen file's path (nor the password) in the page HTML or the logs")


def main():
    app, relay = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/relay-no-bus"
    os.makedirs(PDF_DIR)
    with open(GOOD, "wb") as f:
        f.write(runbook_pdf())
    with open(BAD, "wb") as f:
        f.write(garbage_pdf())
    # The app inherits the environment of tauri-driver (through WebKitWebDriver).
    os.environ["RELAY_TEST_WIKI_PICK"] = f"{GOOD}:{BAD}"
    os.makedirs(SAVE_DIR)
    os.environ["RELAY_TEST_WIKI_SAVE_DIR"] = SAVE_DIR
    data_dir = os.path.join(WORK, "data")
    started = time.monotonic()
    proc = start_driver()
    sid = None
    ok = False
    try:
        sid = open_session(app, ["--data-dir", data_dir, "--server-mode", "--bind", "127.0.0.1", "--no-mdns",
                                 "--port", "0"])
        assert invoke(sid, "connection_info")["ok"]["mode"] == "server"
        wait_for("the control socket", lambda: os.path.exists(os.path.join(data_dir, "control.sock")), timeout=30)
        relay_admin(relay, data_dir, ["set-password", "--username", "ryan"], OWNER_PW + "\n")
        relay_admin(relay, data_dir, ["activate", "--username", "ryan"])
        sign_in_owner(sid, data_dir)
        network = add_category(sid)
        upload_id = upload_both(sid)
        doc_id = publish(sid, upload_id, network)
        out = os.environ.get("DESKTOP_WIKI_SCREENSHOT")
        if out:
            with open(out, "wb") as f:
                f.write(base64.b64decode(call("GET", f"/session/{sid}/screenshot")["value"]))
            print(f"ok   screenshot of the Wiki section -> {out}")
        trash_and_restore(sid, doc_id)
        download_from_knowledge(sid, next(d for d in library(sid)["documents"] if d["id"] == doc_id))
        no_paths(sid, data_dir)
        ok = True
    finally:
        if not ok:
            print("---- webdriver/app log (tail) ----\n" + "\n".join(log_text().splitlines()[-40:]), file=sys.stderr)
        close_session(sid)
        stop_process(proc)
        shutil.rmtree(WORK, ignore_errors=True)
    print(f"desktop Wiki publishing flow ok ({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
