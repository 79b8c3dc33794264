"""One inspector tab over a server's catalog: a list on the left; on the right the chosen item's
details, a form generated for it, a run button, and the answer.

`CatalogPane` holds the behaviour (keeping the selection across refreshes, validating the form,
running the request in a worker that can be cancelled, remembering each item's last answer);
subclasses in `widgets/mcp_panes.py` say what the items are and which request they make.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from rich.console import RenderableType
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from app.runtime.error_log import in_words
from app.mcp.media import Media
from app.mcp.schema_form import FormField, collect
from widgets import mcp_result
from widgets.mcp_completion import CompletionList
from widgets.mcp_history import save_call
from widgets.schema_form import SchemaForm

Clock = Callable[[], float]


class CatalogPane(Horizontal):
    """Subclasses set KIND/ACTION/EMPTY and implement items, key, label, describe, fields and run."""

    KIND = "item"
    ACTION = "Run"
    EMPTY = "Nothing here."

    class Called(Message):
        """A request made here finished (it is in the server's history)."""

        def __init__(self, server: str) -> None:
            super().__init__()
            self.server = server
    BINDINGS = [Binding("ctrl+s", "save_media", "Save media", show=False, id="mcp.save_media"),
                Binding("ctrl+o", "open_media", "Open media", show=False, id="mcp.open_media")]

    def __init__(self, *, clock: Clock = time.perf_counter, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.clock = clock
        self.manager: Any = None
        self.server: str | None = None
        self.entries: dict[str, Any] = {}
        self.current: str | None = None
        self.results: dict[tuple[str, str], RenderableType] = {}
        self.worker: Worker | None = None
        self._form_key: tuple[str, str] | None = None
        self._running_text = ""
        self._picked_value: tuple[int, str] | None = None
        self.media: dict[tuple[str, str], list[Media]] = {}  # each answer's images, audio and blobs
        self._answer_media: list[Media] = []
        self._answer_failed = False  # the answer said isError
        self._form_widget: SchemaForm | None = None

    # -- what subclasses provide ---------------------------------------------------------------
    def items(self, state: Any) -> list[tuple[str, Any]]:
        """(key, item) pairs to list; a key starting with '#' is a heading."""
        raise NotImplementedError

    def label(self, item: Any) -> RenderableType:
        raise NotImplementedError

    def describe(self, item: Any) -> list[Any]:
        """Widgets shown above the form (description, schema…)."""
        raise NotImplementedError

    def fields(self, item: Any) -> list[FormField]:
        raise NotImplementedError

    def schema(self, item: Any) -> Any:
        """The JSON schema the arguments must satisfy (None: only per-field checks)."""
        return None

    async def run(self, item: Any, arguments: dict[str, Any]) -> dict[str, Any]:
        """Make the request; returns the answer as JSON (`{"result": …}` plus what showing it needs),
        which `mcp_result.render_answer` shows and the history keeps."""
        raise NotImplementedError

    def running_text(self, item: Any) -> str:
        return f"{self.ACTION}…"

    def completion_ref(self, item: Any) -> tuple[str, str] | None:
        """What completion/complete is asked about for this item's fields (None: no completion)."""
        return None

    # -- layout -----------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield OptionList(id=f"{self.KIND}-list", classes="catalog-list")
        with VerticalScroll(id=f"{self.KIND}-detail", classes="catalog-detail"):
            yield Vertical(id=f"{self.KIND}-about", classes="catalog-about")
            yield Vertical(id=f"{self.KIND}-form-holder", classes="catalog-form")
            yield CompletionList(id=f"{self.KIND}-completions")
            with Horizontal(classes="catalog-actions"):
                yield Button(self.ACTION, id=f"{self.KIND}-run", variant="primary", disabled=True, compact=True)
                yield Button("Save media", id=f"{self.KIND}-save", compact=True, classes="catalog-save")
                yield Static("", id=f"{self.KIND}-status", classes="catalog-status")
            yield Static("", id=f"{self.KIND}-result", classes="catalog-result")
            yield Vertical(id=f"{self.KIND}-images", classes="catalog-images")

    @property
    def option_list(self) -> OptionList:
        return self.query_one(f"#{self.KIND}-list", OptionList)

    @property
    def form(self) -> SchemaForm | None:
        """The form of the selected item (not one still being removed after a switch)."""
        form = self._form_widget
        return form if form is not None and form.is_attached else None

    # -- showing a server -------------------------------------------------------------------------
    def show_server(self, manager: Any, server: str | None) -> None:
        """List the server's items again (after a change or a switch), keeping the selection."""
        self.manager, changed = manager, server != self.server
        self.server = server
        state = manager.servers.get(server) if manager is not None and server else None
        pairs = self.items(state) if state is not None else []
        self.entries = {key: item for key, item in pairs}
        options = self.option_list
        keep = None if changed else self.current
        options.clear_options()
        for key, item in pairs:
            if key.startswith("#"):
                options.add_option(Option(Text(item, style="bold"), id=key, disabled=True))
            else:
                options.add_option(Option(self.label(item), id=key))
        if not [k for k in self.entries if not k.startswith("#")]:
            options.add_option(Option(Text(self.EMPTY, style="dim italic"), id="#empty", disabled=True))
        selectable = [i for i, (k, _) in enumerate(pairs) if not k.startswith("#")]
        if keep in self.entries:
            options.highlighted = options.get_option_index(keep)
        elif selectable:
            options.highlighted = selectable[0]
        else:
            self.select(None)
        if options.highlighted is not None:
            self.select(options.get_option_at_index(options.highlighted).id)

    @on(OptionList.OptionHighlighted, ".catalog-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.select(event.option_id)

    @on(OptionList.OptionSelected, ".catalog-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        """Enter on an item moves to its form (or runs it at once when it takes no arguments)."""
        event.stop()
        form = self.form
        if form is not None and form.fields:
            form.focus_first()
        else:
            self.submit()

    def select(self, key: str | None) -> None:
        """Show the item's details and form; the form is only rebuilt when the item changed."""
        item = self.entries.get(key) if key else None
        self.current = key if item is not None else None
        form_key = (self.server or "", key or "") if item is not None else None
        if form_key == self._form_key:
            return
        self._form_key = form_key
        about = self.query_one(f"#{self.KIND}-about", Vertical)
        holder = self.query_one(f"#{self.KIND}-form-holder", Vertical)
        about.remove_children()
        holder.remove_children()
        if item is not None:
            about.mount_all(self.describe(item))
            self._form_widget = SchemaForm(self.fields(item))
            holder.mount(self._form_widget)
        else:
            self._form_widget = None
        self.query_one(f"#{self.KIND}-run", Button).disabled = item is None
        self.query_one(CompletionList).hide()
        self._show_result(self.results.get(form_key) if form_key else None)
        self._show_save()
        self._status("")

    # -- completion ---------------------------------------------------------------------------------
    def _field_index(self, widget: Any) -> int | None:
        wid = getattr(widget, "id", None) or ""
        form = self.form
        if not isinstance(widget, Input) or not wid.startswith("field-") or form is None or widget.parent is not form:
            return None
        return int(wid.removeprefix("field-"))

    def _ask_completion(self, widget: Any) -> None:
        """Ask the server for values of the focused field (prompt argument or template variable)."""
        index = self._field_index(widget)
        item = self.entries.get(self.current or "")
        ref = self.completion_ref(item) if item is not None else None
        state = self.manager.servers.get(self.server) if self.manager is not None and self.server else None
        if index is None or ref is None or state is None or "completions" not in (state.capabilities or {}):
            return
        form = self.form
        name = form.fields[index].name
        context = {k: str(v) for k, v in form.raw_values().items() if k != name and isinstance(v, str) and v}
        self.run_worker(self._complete(self.server, ref, index, name, widget.value, context),
                        group=f"mcp-complete-{self.KIND}", exclusive=True, exit_on_error=False)

    async def _complete(self, server: str, ref: tuple[str, str], index: int, name: str, value: str,
                        context: dict[str, str]) -> None:
        try:
            values = await self.manager.complete(server, ref, name, value, context)
        except Exception as exc:  # noqa: BLE001 - the words go on screen; typing goes on
            self._status(Text(in_words("Completion", exc), style="yellow"))
            return
        form = self.form
        if server == self.server and form is not None and self.focused_field() == index:
            picked = self._picked_value == (index, value)  # not offered again the value just taken
            self.query_one(CompletionList).offer(index, name, [] if picked and values == [value] else values)

    def focused_field(self) -> int | None:
        return self._field_index(self.screen.focused)

    def on_descendant_focus(self, event: Any) -> None:
        if self._field_index(event.widget) is not None:
            self._ask_completion(event.widget)

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        if event.input.has_focus:
            self._ask_completion(event.input)

    def on_key(self, event: Any) -> None:
        """Down in a field with values offered moves into the list."""
        completions = self.query_one(CompletionList)
        if event.key == "down" and completions.shown and self.focused_field() == completions.field_index:
            event.stop()
            event.prevent_default()
            completions.focus()

    @on(CompletionList.Picked)
    def _picked(self, event: CompletionList.Picked) -> None:
        event.stop()
        form = self.form
        if form is not None and event.index < len(form.fields):
            self._picked_value = (event.index, event.value)
            form.set_value(form.fields[event.index].name, event.value)
            field = form.query_one(f"#field-{event.index}", Input)
            field.focus()
            field.cursor_position = len(event.value)

    # -- running ------------------------------------------------------------------------------------
    @on(Input.Submitted)
    def _enter(self, event: Input.Submitted) -> None:
        """Enter in any field runs the request, like pressing the button."""
        event.stop()
        self.submit()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == f"{self.KIND}-run":
            event.stop()
            self.submit()
        elif event.button.id == f"{self.KIND}-save":
            event.stop()
            self.action_save_media()

    def submit(self) -> None:
        """Validate the form and run the request in a worker (or cancel the one running)."""
        if self.worker is not None and self.worker.is_running:
            self.worker.cancel()
            return
        item = self.entries.get(self.current or "")
        form = self.form
        if item is None or form is None:
            return
        arguments, errors = collect(form.fields, form.raw_values(), self.schema(item))
        form.show_errors(errors)
        if errors:
            general = errors.get("", "")
            self._status(Text(f"Fix the marked fields first. {general}".strip(), style="red"))
            return
        key = (self.server or "", self.current or "")
        self._running_text = self.running_text(item)
        self._status(self._running_text)
        self.query_one(f"#{self.KIND}-run", Button).label = "Cancel"
        self.worker = self.run_worker(self._run(key, item, arguments, form.raw_values()), group=f"mcp-{self.KIND}",
                                      exit_on_error=False)

    async def _run(self, key: tuple[str, str], item: Any, arguments: dict[str, Any], raw: dict[str, Any]) -> None:
        started = self.clock()
        self._answer_media, self._answer_failed = [], False
        ok = True
        try:
            answer = await self.run(item, arguments)
            elapsed = (self.clock() - started) * 1000
        except Exception as exc:  # noqa: BLE001 - every failure becomes words on screen
            elapsed, ok = (self.clock() - started) * 1000, False
            answer = {"error": in_words("The MCP request", exc)}
        shown = mcp_result.render_answer(self.KIND, answer, elapsed, self.media_view())
        await self._remember(key, item, arguments, raw, ok and not self._answer_failed, elapsed, answer, shown)
        self.results[key] = shown
        self.media[key] = self._answer_media
        if self._form_key == key:
            self._show_result(shown)
            self._show_save()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self.worker:
            return
        if event.state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            self.query_one(f"#{self.KIND}-run", Button).label = self.ACTION
            self._status("Cancelled: the request was abandoned." if event.state == WorkerState.CANCELLED else "")

    async def _remember(self, key: tuple[str, str], item: Any, arguments: dict[str, Any], raw: dict[str, Any],
                        ok: bool, elapsed: float, answer: dict[str, Any], shown: RenderableType) -> None:
        """Add the call to the server's history, in memory and in the store (the History tab lists it
        and runs it again, after a restart too)."""
        from app.mcp.inspection import CallRecord

        state = self.manager.servers.get(key[0]) if self.manager is not None else None
        if state is None:
            return
        label = self.label(item)
        record = CallRecord(time.time(), self.KIND, key[1],
                            label.plain.split("\n")[0] if isinstance(label, Text) else key[1],
                            arguments, raw, ok, elapsed, shown, answer)
        state.inspection.history.append(record)
        await save_call(self.app, key[0], record)
        self.post_message(self.Called(key[0]))

    def run_again(self, key: str, raw: dict[str, Any]) -> bool:
        """Select `key`, fill its form with `raw` values and run it; False when the item is gone."""
        if key not in self.entries:
            return False
        self.option_list.highlighted = self.option_list.get_option_index(key)
        self.select(key)
        self.call_after_refresh(self._fill_and_submit, raw)
        return True

    def _fill_and_submit(self, raw: dict[str, Any], tries: int = 20) -> None:
        form = self.form
        if form is None or not form.is_mounted or (form.fields and not form.query("#field-0")):  # still mounting
            if tries:
                self.call_after_refresh(self._fill_and_submit, raw, tries - 1)
            return
        for name, value in raw.items():
            if any(f.name == name for f in form.fields) and value is not None:
                form.set_value(name, value)
        self.submit()

    # -- media ----------------------------------------------------------------------------------------
    def media_view(self) -> mcp_result.MediaView:
        """Half-block previews only where the terminal draws no images; the save/open keys in force."""
        from widgets.key_hints import key_hint

        return mcp_result.MediaView(getattr(self.app, "image_protocol", None) is None,
                                    key_hint(self, "mcp.save_media"), key_hint(self, "mcp.open_media"))

    def found(self, result: Any) -> None:
        """Subclasses hand each answer here, so its images, audio and blobs can be saved."""
        from app.mcp.convert import _get
        from app.mcp.media import media_in

        self._answer_media = media_in(result)
        self._answer_failed = bool(_get(result, "is_error", "isError", default=False))

    def _show_save(self) -> None:
        """The save button, and the answer's images drawn by the terminal where it can (widgets/inline_image.py)."""
        media = self.media.get(self._form_key) if self._form_key else None
        self._show_images(media or [])
        button = self.query_one(f"#{self.KIND}-save", Button)
        button.display = bool(media)
        if media:
            button.label = f"Save media ({len(media)})"

    def _show_images(self, media: list[Media]) -> None:
        from widgets.inline_image import image_widget

        holder = self.query_one(f"#{self.KIND}-images", Vertical)
        holder.remove_children()
        protocol = getattr(self.app, "image_protocol", None)
        for index, item in enumerate([m for m in media if m.kind == "image"] if protocol else (), 1):
            try:
                data = item.decoded()
            except ValueError:
                continue
            widget = image_widget(protocol, data, item.mime, f"▣ image {index} · {item.mime}")
            if widget is not None:
                holder.mount(widget)

    def action_save_media(self, then_open: bool = False) -> None:
        media = self.media.get(self._form_key) if self._form_key else None
        if not media:
            self.notify("This answer has no image, audio or binary data to save.", timeout=3)
            return
        options = getattr(self.app, "options", None)
        folder = (options.data_dir if options is not None else Path.cwd()) / "mcp-media"
        stem = f"{self.server}-{self.current or self.KIND}".replace(":", "-").replace("/", "-")
        self.run_worker(self._save(media, folder, stem, then_open), group="mcp-save", exit_on_error=False)

    def action_open_media(self) -> None:
        """Save the answer's media, then open the first file with $BROWSER or xdg-open."""
        self.action_save_media(then_open=True)

    async def _save(self, media: list[Media], folder: Path, stem: str, then_open: bool = False) -> None:
        import asyncio

        from app.mcp.media import save_all

        try:
            paths = await asyncio.to_thread(save_all, media, folder, stem)
        except (OSError, ValueError) as exc:
            self._status(Text(f"✖ Saving failed: {exc}", style="red"))
            return
        self._status(Text(f"Saved {len(paths)} file(s): " + ", ".join(str(p) for p in paths), style="green"))
        if then_open:
            await self._open(paths[0], media[0].kind)
        else:
            self.notify(f"Saved to {paths[0].parent}", title="Media", timeout=4)

    async def _open(self, path: Path, kind: str = "image") -> None:
        """Run the viewer (an audio clip: a player) on `path` and wait for it in this worker."""
        import asyncio
        import subprocess

        from app.mcp.media import open_command, play_command

        command = play_command(path) if kind == "audio" else open_command(path)
        if command is None:
            missing = ("nothing to play it with: install mpv, ffplay, paplay, aplay or afplay (or set $BROWSER)"
                       if kind == "audio" else "nothing to open it with: set $BROWSER or install xdg-open")
            self._status(Text(f"Saved to {path}; {missing}.", style="yellow"))
            return
        try:
            process = await asyncio.create_subprocess_exec(
                *command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)
        except OSError as exc:
            self._status(Text(f"Saved to {path}; {command[0]} could not start: {exc}", style="red"))
            return
        verb = "playing with" if kind == "audio" else "opened with"
        self._status(Text(f"Saved to {path}; {verb} {Path(command[0]).name}.", style="green"))
        status = await process.wait()
        if status != 0:
            self._status(Text(f"Saved to {path}; {Path(command[0]).name} exited with status {status}.",
                              style="yellow"))

    def progress(self, value: float, total: float | None, message: str | None) -> None:
        """A progress notification for the running request."""
        of = f"/{total:g}" if total else ""
        self._status(Text(f"{self._running_text} progress {value:g}{of}" + (f": {message}" if message else "")))

    def _status(self, text: RenderableType) -> None:
        self.query_one(f"#{self.KIND}-status", Static).update(text)

    def _show_result(self, shown: RenderableType | None) -> None:
        self.query_one(f"#{self.KIND}-result", Static).update(shown if shown is not None else "")
