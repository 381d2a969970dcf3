"""A small driver for headless Chromium over the DevTools protocol (Debian's chromium and
python3-websocket): open pages, collect console errors and network requests, run JavaScript, press
keys, take screenshots.

    with Browser() as browser:
        page = browser.open("file:///tmp/rounds.html")
        page.evaluate("document.title")
        page.press("ArrowRight")
        png = page.screenshot()
        assert not page.errors, page.errors
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

import websocket  # python3-websocket

# Chromium's own switches for a quiet, private, reproducible run: no sandbox (containers, root), no
# GPU, nothing fetched in the background, a fresh profile. Only the pages given are loaded.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
    "--mute-audio",
    "--hide-scrollbars",
    "--remote-debugging-port=0",
]

KEYS = {  # key: (code, windowsVirtualKeyCode)
    "ArrowRight": ("ArrowRight", 39),
    "ArrowLeft": ("ArrowLeft", 37),
    "Home": ("Home", 36),
    "End": ("End", 35),
    "0": ("Digit0", 48),
    " ": ("Space", 32),
}


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class DevToolsError(RuntimeError):
    pass


class Browser:
    """One headless Chromium with a fresh profile, ended (and its profile removed) on exit."""

    def __init__(self, executable: str | None = None, timeout: float = 30.0) -> None:
        self.executable = executable or find_chromium()
        if not self.executable:
            raise FileNotFoundError("chromium is not installed (scripts/setup.sh installs it)")
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="wagener-chromium-")
        self.log = open(os.path.join(self.profile, "chromium.log"), "w+b")
        self.process = subprocess.Popen(
            [self.executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
        )
        self.socket = websocket.create_connection(self._endpoint(), timeout=timeout, suppress_origin=True)
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def _endpoint(self) -> str:
        """The browser's websocket, from the DevToolsActivePort file Chromium writes into its profile."""
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise DevToolsError(f"chromium exited with code {self.process.returncode}: {self.chromium_log()}")
            try:
                with open(port_file) as f:
                    lines = f.read().split()
                if len(lines) >= 2:
                    return f"ws://127.0.0.1:{lines[0]}{lines[1]}"
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        raise DevToolsError(f"chromium did not open its DevTools port in {self.timeout} s: {self.chromium_log()}")

    def chromium_log(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-2000:]

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        """Sends one command and waits for its answer; events met meanwhile are kept in self.events."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            reply = json.loads(self.socket.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise DevToolsError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)
        raise DevToolsError(f"{method}: no answer in {self.timeout} s")

    def pump(self, seconds: float) -> None:
        """Reads events for a while (those that arrive between commands)."""
        self.socket.settimeout(seconds)
        try:
            while True:
                reply = json.loads(self.socket.recv())
                if "method" in reply:
                    self.events.append(reply)
        except websocket.WebSocketTimeoutException:
            pass
        finally:
            self.socket.settimeout(self.timeout)

    def open(self, url: str, width: int = 1200, height: int = 800) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session, target)
        for domain in ("Runtime", "Log", "Page", "Network"):
            page.send(f"{domain}.enable")
        page.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        page.send("Emulation.setFocusEmulationEnabled", {"enabled": True})
        # Frames of their own process (a sandboxed iframe) attach as child sessions, paused until
        # Page.adopt_children has enabled their domains, so that none of their errors is missed.
        page.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True})
        page.navigate(url)
        return page

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except Exception:  # noqa: BLE001 - it may be gone already; it is killed below anyway
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.socket.close()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Page:
    def __init__(self, browser: Browser, session: str, target: str | None = None) -> None:
        self.browser = browser
        self.session = session
        self.target = target
        self.children: dict[str, Page] = {}  # frames in processes of their own, by session

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, self.session)

    def events(self, method: str) -> list[dict[str, Any]]:
        return [e["params"] for e in self.browser.events if e.get("sessionId") == self.session and e["method"] == method]

    def close(self) -> None:
        if self.target:
            self.browser.send("Target.closeTarget", {"targetId": self.target})

    def navigate(self, url: str) -> None:
        loads = len(self.events("Page.loadEventFired"))
        self.send("Page.navigate", {"url": url})
        deadline = time.monotonic() + self.browser.timeout
        while len(self.events("Page.loadEventFired")) == loads:
            if time.monotonic() > deadline:
                raise DevToolsError(f"{url} did not load in {self.browser.timeout} s")
            self.browser.pump(0.05)
            self.adopt_children()

    def adopt_children(self) -> None:
        """Enables Runtime, Log and Network in child frames that attached since, and lets them run."""
        for e in self.events("Target.attachedToTarget"):
            if e["sessionId"] in self.children:
                continue
            child = Page(self.browser, e["sessionId"])
            self.children[e["sessionId"]] = child
            for domain in ("Runtime", "Log", "Network"):
                child.send(f"{domain}.enable")
            if e.get("waitingForDebugger"):
                child.send("Runtime.runIfWaitingForDebugger")

    def frames(self) -> list[Page]:
        """The child frames with processes of their own (an iframe's page), in order of attaching."""
        self.adopt_children()
        return list(self.children.values())

    @property
    def errors(self) -> list[str]:
        """Uncaught exceptions, console.error/assert calls and error-level log entries (a blocked load,
        a policy violation), as text."""
        found = []
        for e in self.events("Runtime.exceptionThrown"):
            details = e["exceptionDetails"]
            found.append("exception: " + details.get("exception", {}).get("description", details.get("text", "")))
        for e in self.events("Runtime.consoleAPICalled"):
            if e["type"] in ("error", "assert"):
                found.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in e["args"]))
        for e in self.events("Log.entryAdded"):
            if e["entry"]["level"] == "error":
                found.append("log: " + e["entry"]["text"])
        for child in self.children.values():
            found += child.errors
        return found

    def requests(self) -> list[str]:
        """The URLs the page and its child frames asked for (its own file and data: URIs included)."""
        urls = [e["request"]["url"] for e in self.events("Network.requestWillBeSent")]
        for child in self.children.values():
            urls += child.requests()
        return urls

    def evaluate(self, expression: str) -> Any:
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        result = self.send("Runtime.evaluate", params)
        if "exceptionDetails" in result:
            raise DevToolsError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 10.0) -> Any:
        """Polls until the expression is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise DevToolsError(f"timed out waiting for {expression}")
            time.sleep(0.05)

    def press(self, key: str) -> None:
        code, virtual = KEYS[key]
        common = {"key": key, "code": code, "windowsVirtualKeyCode": virtual, "nativeVirtualKeyCode": virtual}
        self.send("Input.dispatchKeyEvent", {"type": "keyDown", **common, **({"text": key} if len(key) == 1 else {})})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **common})

    def wheel(self, x: float, y: float, delta_y: float) -> None:
        self.send("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": delta_y})

    def screenshot(self, scale: float = 1.0) -> bytes:
        """The viewport as PNG bytes (scale < 1 gives a smaller picture, quicker to check)."""
        metrics = self.send("Page.getLayoutMetrics")["cssVisualViewport"]
        clip = {"x": 0, "y": 0, "width": metrics["clientWidth"], "height": metrics["clientHeight"], "scale": scale}
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png", "clip": clip})["data"])
