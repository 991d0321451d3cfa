"""The fake GitHub of the desktop updater flows (webdriver_update.py, webdriver_launcher_update.py,
webdriver_launcher_recovery.py):
GitHub's API host and release-assets host on 127.0.0.1, speaking the real wire format (the
"latest release" JSON of `infra::updater::test_support`, each asset API URL answering `302` to
the release-assets host; a release served by its tag with `serve_tag`, as the repair of a
retained build fetches it), a throwaway minisign publisher key (Ed25519 over BLAKE2b-512, trusted
comment bound to version, commit and archive name) and the signed release zip it serves.
"""
import base64
import hashlib
import io
import json
import re
import secrets
import threading
import time
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

LATEST = "/repos/CrimsonSoul/Relay/releases/latest"
TAG = "/repos/CrimsonSoul/Relay/releases/tags/v{}"
HISTORY = "/repos/CrimsonSoul/Relay/releases?per_page=20"
CHUNK = 64 * 1024


def archive_name(version):
    return f"relay-v{version}-linux-x86_64.zip"


class Publisher:
    """A throwaway minisign key: `pub` is the base64 line of its minisign.pub."""

    def __init__(self):
        self.key = Ed25519PrivateKey.generate()
        self.key_id = secrets.token_bytes(8)
        raw = self.key.public_key().public_bytes_raw()
        self.pub = base64.b64encode(b"Ed" + self.key_id + raw).decode()

    def sign(self, data, trusted_comment):
        """minisign's prehashed (`ED`) signature file."""
        signature = self.key.sign(hashlib.blake2b(data, digest_size=64).digest())
        global_signature = self.key.sign(signature + trusted_comment.encode())
        return (f"untrusted comment: signature from a throwaway test key\n"
                f"{base64.b64encode(b'ED' + self.key_id + signature).decode()}\n"
                f"trusted comment: {trusted_comment}\n"
                f"{base64.b64encode(global_signature).decode()}\n").encode()


def fake_executable():
    """An x86-64 ELF header and 3 MiB of incompressible bytes (prepare checks the ELF magic only)."""
    elf = bytearray(64)
    elf[:7] = b"\x7fELF\x02\x01\x01"
    elf[16:20] = (2).to_bytes(2, "little") + (62).to_bytes(2, "little")
    return bytes(elf) + secrets.token_bytes(3 * 1024 * 1024 - 64)


def release_zip(executable):
    """One deflated, 0755 `relay-desktop` holding `executable`."""
    member = zipfile.ZipInfo("relay-desktop", date_time=(1980, 1, 1, 0, 0, 0))
    member.create_system = 3
    member.external_attr = 0o100755 << 16
    member.compress_type = zipfile.ZIP_DEFLATED
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compresslevel=1) as z:
        z.writestr(member, executable)
    return out.getvalue()


class Release:
    """One published release: its archive, `.sha256` and `.minisig`, with GitHub asset ids from `first_id`."""

    def __init__(self, publisher, version, commit, executable=None, first_id=9001):
        self.version, self.commit, self.archive = version, commit, archive_name(version)
        archive = release_zip(executable if executable is not None else fake_executable())
        checksum = f"{hashlib.sha256(archive).hexdigest()}  {self.archive}\n".encode()
        signature = publisher.sign(archive, f"relay-release v{version} {commit} {self.archive}")
        self.files = {self.archive: archive, self.archive + ".sha256": checksum, self.archive + ".minisig": signature}
        self.ids = {name: first_id + n for n, name in enumerate(self.files)}


def release_json(release):
    """GitHub's "latest release" object (the field names and shape of the real API)."""
    version, commit, files = release.version, release.commit, release.files

    def asset(name, content_type):
        aid, data = release.ids[name], files[name]
        return {
            "url": f"https://api.github.com/repos/CrimsonSoul/Relay/releases/assets/{aid}", "id": aid,
            "node_id": "RA_kwDOtest", "name": name, "label": "",
            "uploader": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"},
            "content_type": content_type, "state": "uploaded", "size": len(data),
            "digest": f"sha256:{hashlib.sha256(data).hexdigest()}", "download_count": 0,
            "created_at": "2026-03-01T10:00:00Z", "updated_at": "2026-03-01T10:00:01Z",
            "browser_download_url": f"https://github.com/CrimsonSoul/Relay/releases/download/v{version}/{name}",
        }
    archive = release.archive
    return {
        "url": "https://api.github.com/repos/CrimsonSoul/Relay/releases/200000001",
        "assets_url": "https://api.github.com/repos/CrimsonSoul/Relay/releases/200000001/assets",
        "upload_url": "https://uploads.github.com/repos/CrimsonSoul/Relay/releases/200000001/assets{?name,label}",
        "html_url": f"https://github.com/CrimsonSoul/Relay/releases/tag/v{version}", "id": 200000001,
        "author": {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}, "node_id": "RE_kwDOtest",
        "tag_name": f"v{version}", "target_commitish": commit, "name": f"Relay {version}",
        "draft": False, "immutable": True, "prerelease": False,
        "created_at": "2026-03-01T09:59:00Z", "updated_at": "2026-03-01T10:00:02Z",
        "published_at": "2026-03-01T10:00:02Z",
        "assets": [asset(archive, "application/zip"), asset(archive + ".sha256", "text/plain"),
                   asset(archive + ".minisig", "application/octet-stream")],
        "tarball_url": f"https://api.github.com/repos/CrimsonSoul/Relay/tarball/v{version}",
        "zipball_url": f"https://api.github.com/repos/CrimsonSoul/Relay/zipball/v{version}",
        "body": "## Fixes\n- the updater",
    }


def history_json(release):
    """GitHub's release-history answer: a draft, the offered release and the running one (v0.1.0)."""
    draft = dict(release_json(release), tag_name="v0.3.0", name="Relay 0.3.0", draft=True, published_at=None)
    running = dict(release_json(release), tag_name="v0.1.0", name="Relay 0.1.0", published_at="2026-02-01T09:00:00Z",
                   body="## First\r\n- notes &amp; <b>tags</b>\u0007")
    return [draft, release_json(release), running]


class FakeGitHub:
    """GitHub's API host and release-assets host, each on its own loopback port, publishing one
    release at a time (`publish` replaces it). The first archive download waits `slow_delay`
    between 64 KiB chunks (slow enough to watch and cancel), later ones `quick_delay`."""

    def __init__(self, release, slow_delay=0.0, quick_delay=0.0):
        self.requests = []
        self.tagged = {}
        self.slow_delay, self.quick_delay = slow_delay, quick_delay
        self.publish(release)
        self.api = self._serve(self._api)
        self.storage = self._serve(self._storage)

    def publish(self, release):
        self.release = release
        self.by_id = {aid: release.files[name] for name, aid in release.ids.items()}
        for other in self.tagged.values():
            self.by_id.update({aid: other.files[name] for name, aid in other.ids.items()})

    def serve_tag(self, release):
        """Answers `GET /repos/CrimsonSoul/Relay/releases/tags/v<version>` (and its assets) with `release`."""
        self.tagged[TAG.format(release.version)] = release
        self.by_id.update({aid: release.files[name] for name, aid in release.ids.items()})

    def origin(self, server):
        return f"http://127.0.0.1:{server.server_address[1]}"

    def _serve(self, handle):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802 (http.server's name)
                fake.requests.append(self.path)
                handle(self)

            def log_message(self, *args):
                pass
        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def _api(self, req):
        if req.path in (LATEST, HISTORY) or req.path in self.tagged:
            answer = (release_json(self.release) if req.path == LATEST else history_json(self.release)
                      if req.path == HISTORY else release_json(self.tagged[req.path]))
            body = json.dumps(answer).encode()
            req.send_response(200)
            req.send_header("Content-Type", "application/json; charset=utf-8")
            req.send_header("Content-Length", str(len(body)))
            req.end_headers()
            req.wfile.write(body)
            return
        m = re.fullmatch(r"/repos/CrimsonSoul/Relay/releases/assets/(\d+)", req.path)
        if m and int(m.group(1)) in self.by_id:
            req.send_response(302)
            req.send_header("Location", f"{self.origin(self.storage)}/github-production-release-asset/{m.group(1)}?sp=r&sig=x")
            req.send_header("Content-Length", "0")
            req.end_headers()
            return
        req.send_error(404)

    def _storage(self, req):
        m = re.fullmatch(r"/github-production-release-asset/(\d+)\?sp=r&sig=x", req.path)
        data = self.by_id.get(int(m.group(1))) if m else None
        if data is None:
            req.send_error(404)
            return
        req.send_response(200)
        req.send_header("Content-Type", "application/octet-stream")
        req.send_header("Content-Length", str(len(data)))
        req.end_headers()
        delay = self.slow_delay if self.archive_requests() <= 1 else self.quick_delay
        try:
            for at in range(0, len(data), CHUNK):
                req.wfile.write(data[at:at + CHUNK])
                req.wfile.flush()
                if len(data) > CHUNK and delay:
                    time.sleep(delay)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client cancelled

    def archive_requests(self):
        """Downloads of the published release's archive so far."""
        aid = self.release.ids[self.release.archive]
        return sum(1 for p in self.requests if p.startswith(f"/github-production-release-asset/{aid}"))

    def close(self):
        for server in (self.api, self.storage):
            server.shutdown()
