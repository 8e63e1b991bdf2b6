"""Send the history-rule probes to the configured live endpoint and to the offline fake,
and print what each answered and whether they agree (`make conformance`).

    python tools/conformance.py                           # live: needs the live switch
    python tools/conformance.py --save my-endpoint.json   # ... and where to record it
    python tools/conformance.py --replay src/looplab/live/conformance.json   # offline
    python tools/conformance.py --from-fake --save FILE   # record the fake as a stand-in

An existing FILE is never replaced unless `--overwrite` is given, and a live recording never
by one of the fake.

The live run is recorded as a cassette (default `conformance.json`). Copy a recording of
the Anthropic API over `src/looplab/live/conformance.json` and the test suite replays it
and fails where the fake's answers differ from the live ones.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import anthropic

from looplab import connect
from looplab.fake import fake_client
from looplab.live import Cassette, conformance, record, replay
from looplab.live.cassette import public_url

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = conformance.RECORDED
FAKE_ENDPOINT = "looplab's offline fake, standing in for a live endpoint"
FAKE_NOTE = (
    "Recorded from looplab's offline fake, not from a live endpoint: no live key was at hand "
    "when it was made, so every answer here is the fake's own and the table agrees by "
    "construction. To record a real endpoint, run `make conformance` with the live switch on "
    "(README, 'Using the live API') and copy the new file here."
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--save", type=Path, default=Path("conformance.json"),
                        help="where to record the answers (default: conformance.json)")
    parser.add_argument("--replay", type=Path, help="show the table of a recorded cassette")
    parser.add_argument("--from-fake", action="store_true",
                        help="record the offline fake in place of a live endpoint")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the --save file if it exists (never a live recording "
                             "by one of the fake)")
    args = parser.parse_args(argv)
    if args.replay is not None:
        return show_recorded(args.replay)
    if args.from_fake:
        client = fake_client(conformance.fake_model())
        return probe(client, args.save, FAKE_NOTE, FAKE_ENDPOINT, args.overwrite)
    found = connect.settings()
    if not found.live:
        print(connect.offline_line(found))
        print("make conformance sends requests to a live endpoint: set LOOPLAB_LIVE=1 and a "
              "key (README, 'Using the live API'). Offline, see the recorded table with:\n"
              f"  python tools/conformance.py --replay {_shown(SHIPPED)}")
        return 2
    client = connect.client()
    note = f"Recorded from {public_url(str(client.base_url))} with model {found.model}."
    return probe(client, args.save, note, None, args.overwrite)


def probe(client: anthropic.Anthropic, save: Path, note: str, endpoint: str | None,
          overwrite: bool = False) -> int:
    model = connect.configured_model()
    try:
        recording = record(client, save, note=note, endpoint=endpoint, overwrite=overwrite)
    except OSError as err:
        print(f"not recorded: {err}")
        return 1
    print(f"sending {len(conformance.PROBES)} probes as model {model}; recording to {save}")
    try:
        table = conformance.run(recording, model, endpoint=endpoint)
    except anthropic.APIConnectionError as err:
        print(f"could not reach {public_url(str(client.base_url))}: {err}. Check "
              "LOOPLAB_BASE_URL and the network.")
        return 1
    except anthropic.APIError as err:  # the recording itself failed (RecordingFailed)
        print(f"stopped: {err}")
        return 1
    print(table)
    refused = table.rows[0].live.status
    if refused in (401, 403):
        print(f"\nThe endpoint refused the key ({refused}): check LOOPLAB_API_KEY / "
              "ANTHROPIC_API_KEY.")
    print(f"\nsaved {save}; replay it offline: python tools/conformance.py --replay {save}")
    return 0


def show_recorded(path: Path) -> int:
    try:
        cassette = Cassette.load(path)
    except (FileNotFoundError, ValueError) as err:
        print(err)
        return 1
    print(f"replaying {path}: {cassette.note}\n")
    try:
        table = conformance.run(replay(cassette), cassette.model or connect.configured_model(),
                                endpoint=cassette.endpoint)
    except (anthropic.AnthropicError, ValueError, TypeError) as err:
        # a cassette of other probes, or one edited by hand, answers what the table
        # cannot read: one line, not a traceback
        print(f"{path} does not replay the probes: {str(err).splitlines()[0]}")
        return 1
    print(table)
    return 0


def _shown(path: Path) -> Path:
    """`path` relative to the repository when it is inside it (an installed copy is not)."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


if __name__ == "__main__":
    sys.exit(main())
