"""Attaching images in the app: `/image PATH` and pasted image paths go to the workstream's next
message, refused with the reason when its model cannot take images (app/mentions/images.py checks them)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.mentions.images import ImageRefused, load_image, marker, pasted_image_path, vision_refusal
from app.vocabulary.attachments import human_size, with_attachments


async def attach_image(app, view, path_text: str) -> None:
    """Load the image at `path_text` (relative to the workspace) for `view`'s next message."""
    if not path_text.strip():
        await view.transcript.add_notice("Usage: /image PATH (a PNG, JPEG, GIF or WebP file)", "warning")
        return
    path = Path(path_text.strip()).expanduser()
    path = path if path.is_absolute() else app.options.workdir / path
    refusal = vision_refusal(view.workstream.session)
    if refusal:
        await view.transcript.add_notice(f"Image not attached: {refusal}.", "warning")
        return
    try:
        image = await asyncio.to_thread(load_image, path)
    except ImageRefused as error:
        await view.transcript.add_notice(f"Image not attached: {error}.", "warning")
        return
    app.pending_images.setdefault(view.workstream.id, []).append(image)
    await view.transcript.add_notice(f"🖼 {image['name']} ({human_size(image['size'])}) goes with your next "
                                     "message.")


def attach_pasted(app, prompt, text: str) -> bool:
    """A paste that is an image path attaches the image (True); anything else is typed as usual."""
    path = pasted_image_path(text, app.options.workdir)
    view = app.main_screen.view_for(app.focused_id) if app.manager is not None else None
    if path is None or view is None or view.prompt is not prompt:
        return False
    app.run_worker(attach_image(app, view, str(path)), group="image", exit_on_error=False)
    return True


async def take_pending(app, workstream, text: str) -> tuple[str, list[dict] | None]:
    """The message text with image markers and the images for it, or a notice when the model
    (switched since) cannot take them."""
    images = app.pending_images.pop(workstream.id, None)
    if not images:
        return text, None
    refusal = vision_refusal(workstream.session)
    if refusal:
        view = app.main_screen.view_for(workstream.id)
        if view is not None:
            await view.transcript.add_notice(f"{len(images)} image(s) not sent: {refusal}.", "warning")
        return text, None
    return with_attachments(text, [marker(image) for image in images]), images
