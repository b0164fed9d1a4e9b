"""Ways to write an IPv4 address that an IDNA/UTS-46 client reads as that address: digits from other
Unicode blocks (full-width, circled, mathematical, superscript) and dots other than ``.``."""

from __future__ import annotations

import ipaddress

from hypothesis import strategies as st

# Each turns an ASCII digit into a character that IDNA maps back to it.
DIGITS = {
    "ascii": lambda d: str(d),
    "full-width": lambda d: chr(0xFF10 + d),
    "circled": lambda d: "\u24ea" if d == 0 else chr(0x2460 + d - 1),
    "bold": lambda d: chr(0x1D7CE + d),
    "double-struck": lambda d: chr(0x1D7D8 + d),
    "sans-serif": lambda d: chr(0x1D7E2 + d),
    "monospace": lambda d: chr(0x1D7F6 + d),
    "superscript": lambda d: "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"[d],
}
DOTS = [".", "\u3002", "\uff0e", "\uff61"]  # ASCII, ideographic, full-width, half-width ideographic

# The spellings the report showed reaching loopback, and the same spellings of two other addresses.
ISSUE_SPELLINGS = [
    "\u2460\u2461\u2466.0.0.1",  # circled 127
    "\uff11\uff12\uff17.\uff10.\uff10.\uff11",  # full-width digits
    "127\u30020\u30020\u30021",  # ideographic full stops
    "\U0001d7cf\U0001d7d0\U0001d7d5.0.0.1",  # mathematical bold 127
]


def spell(address: str, digits: str = "ascii", dot: str = ".", first_label_only: bool = False) -> str:
    labels = address.split(".")
    if first_label_only:
        return dot.join([_spell_label(labels[0], digits), *labels[1:]])
    return dot.join(_spell_label(label, digits) for label in labels)


def _spell_label(label: str, digits: str) -> str:
    return "".join(DIGITS[digits](int(c)) for c in label)


OTHER_ISSUE_ADDRESSES = {
    address: [
        spell(address, "circled", first_label_only=True),
        spell(address, "full-width"),
        spell(address, dot="\u3002"),
        spell(address, "bold", first_label_only=True),
    ]
    for address in ["169.254.169.254", "10.0.0.1"]
}


@st.composite
def spellings(draw: st.DrawFn, addresses: st.SearchStrategy[ipaddress.IPv4Address]) -> tuple[str, str]:
    """An address and one spelling of it: each digit and each dot drawn on its own."""
    address = str(draw(addresses))
    kinds = st.sampled_from(sorted(DIGITS))
    out = []
    for c in address:
        out.append(draw(st.sampled_from(DOTS)) if c == "." else DIGITS[draw(kinds)](int(c)))
    return address, "".join(out)


def networks(*cidrs: str) -> st.SearchStrategy[ipaddress.IPv4Address]:
    return st.one_of(*(st.ip_addresses(network=c) for c in cidrs))  # type: ignore[arg-type]


NON_PUBLIC_V4 = networks(
    "127.0.0.0/8",
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "169.254.0.0/16",
    "100.64.0.0/10",
    "0.0.0.0/8",
    "224.0.0.0/4",
    "240.0.0.0/4",
    "192.0.2.0/24",
    "198.18.0.0/15",
)
PUBLIC_V4 = networks("8.8.8.0/24", "93.184.216.0/24", "1.1.1.0/24", "151.101.0.0/16")
