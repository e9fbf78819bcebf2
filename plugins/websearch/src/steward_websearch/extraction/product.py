"""Product pages: the buy box beside the description.

A shop's page says what its product is in two places: the buy box (the product's name over its
price) and the description, often far apart in the page's layout, with picture galleries and
variant pickers between. The main content found is the description, the block that says the
most; a reader who came for the product wants its price with it. Where the page declares a
product (JSON-LD ``Product``, ``ProductGroup``) with a price, and the content chosen does not
hold the page's title (its ``h1``), the title and the first short block after it showing a
declared price are put before the content. Only what the page shows is taken: the price comes
from the page, the declaration only says which number to look for.

(Choosing the declared description over the page's sections was measured too, and left out:
on WCXB's dev split it won four product pages and lost five, whose features and specifications
stand outside the description.)
"""

from __future__ import annotations

import re
from typing import Any
from xml.etree.ElementTree import Element

from steward_websearch.extraction.tree import Measures, is_inside, paragraph_text

PRODUCT_TYPES = frozenset({"Product", "ProductGroup", "IndividualProduct", "ProductModel"})
PRICE_CHARS = 60
"""A price block says at most this much: "Regular price $19.99 Sale price $14.99"."""


def add_buy_box(items: list[dict[str, Any]], body: Element, content: Element) -> bool:
    """Put the page's title and price before ``content`` when the page declares a product with a
    price and ``content`` holds neither; nothing when the page shows no such price. Whether it did."""
    product = _product(items)
    prices = _prices(product) if product is not None else set()
    title = next(body.iter("h1"), None)
    if not prices or title is None or any(element is title for element in content.iter()):
        return False
    measures = Measures(body)
    price = _price_after(title, prices, body, measures)
    if price is None or any(element is price for element in content.iter()):
        return False
    content[:0] = [title, price]
    return True


def _product(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    for item in items:
        kinds = item.get("@type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if any(isinstance(kind, str) and kind.rsplit("/", 1)[-1] in PRODUCT_TYPES for kind in kinds):
            return item
    return None


def _prices(product: dict[str, Any]) -> set[str]:
    """The declared prices as a page may write them: ``19.99`` is also ``19,99``; ``20.00`` is also ``20``."""
    offers = product.get("offers")
    offers = offers if isinstance(offers, list) else [offers]
    written: set[str] = set()
    for offer in offers:
        if not isinstance(offer, dict):
            continue
        for key in ("price", "lowPrice"):
            price = offer.get(key)
            if isinstance(price, (int, float)) or (isinstance(price, str) and _NUMBER.fullmatch(price.strip())):
                amount = f"{float(price):.2f}"
                if float(price) > 0:
                    written |= {amount, amount.replace(".", ","), amount.removesuffix(".00")}
    return written


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _price_after(title: Element, prices: set[str], body: Element, measures: Measures) -> Element | None:
    """The first short block after the title that shows a declared price: the buy box's price."""
    if not prices:
        return None
    after = False
    for element in body.iter():
        if element is title:
            after = True
            continue
        if not after or not 0 < measures.chars.get(element, 0) <= PRICE_CHARS or is_inside(element, title, measures):
            continue
        if element.tag in ("script", "style", "template", "option"):
            continue
        numbers = set(_PRICE.findall(_THOUSANDS.sub("", paragraph_text(element))))
        if numbers & prices:
            return element
    return None


_PRICE = re.compile(r"\d+(?:[.,]\d{2})?")
_THOUSANDS = re.compile(r"(?<=\d)[,.\u00a0\u202f ](?=\d{3}(?!\d))")
"""A thousands separator: ``1,299.99``, ``1.299,99`` and ``1 299,99`` are ``1299.99`` and ``1299,99``."""
