"""read_product: the product's own description, without reviews and suggestions, name on top."""

from __future__ import annotations

from netsift.fetch.html import extract_html, parse_html
from netsift.fetch.product import (
    card_text,
    noise_text,
    read_product,
    without_copies,
    without_noise,
)

SHOP = """<html><head><title>Trail Pack 25 | Outdoor Shop</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",
"name": "Trail Pack 25", "sku": "TP-25",
"offers": {"@type": "Offer", "price": "89.00", "priceCurrency": "USD"}}</script></head><body>
<nav><a href="/">Shop</a><a href="/packs">Packs</a></nav>
<main><div class="product-main"><h1>Trail Pack 25</h1><span class="price">$89.00</span>
<button>Add to cart</button></div>
<section class="product-description"><h2>Description</h2>
<p>Keep your gear within easy reach in the Trail Pack 25: it fits a wide range of body types
and has pockets for quick access to snacks, maps and a rain jacket on the trail.</p>
<ul><li>Ripstop nylon body with a water repellent finish</li>
<li>Padded shoulder straps and a removable hipbelt</li></ul></section>
<section class="product-reviews"><h2>Customer reviews</h2>
<div class="review-card"><p>Carried it across the whole ridge in heavy rain last autumn and my
sandwiches stayed perfectly dry, would buy again for my brother.</p></div>
<div class="review-card"><p>The zipper broke after two weeks of commuting by bike to the office
every single day, customer service was slow to answer.</p></div></section>
<section class="recommendations"><h2>You may also like</h2>
<p>Summit Pack 40 is our bigger pack for long weekends with a frame and a lid pocket for maps.</p>
</section>
<div class="account-modal"><p>Sign in to your account to save this pack to your wishlist and
see the orders you placed with us over the last two years.</p></div>
<div class="product-details-modal"><p>Measured with the hipbelt on, the pack weighs one pound
thirteen ounces and holds twenty five litres of gear.</p></div>
<section class="testimonials home-review-cards"><p>Our guides have carried the Trail Pack
on every tour we have run since the spring and they would not go back to any other pack.</p>
</section></main>
<footer>Returns. Shipping. Privacy.</footer></body></html>"""

URL = "https://shop.example/products/trail-pack-25"


def test_reviews_and_recommendations_leave_the_text() -> None:
    text = extract_html(SHOP, url=URL, format="text").content
    assert "within easy reach" in text and "Padded shoulder straps" in text
    assert "sandwiches stayed" not in text and "zipper broke" not in text
    assert "Summit Pack 40" not in text


def test_seller_testimonials_stay() -> None:
    text = extract_html(SHOP, url=URL, format="text").content
    assert "would not go back to any other pack" in text


def test_dialogs_go_unless_they_hold_the_product_details() -> None:
    text = extract_html(SHOP, url=URL, format="text").content
    assert "Sign in to your account" not in text
    assert "holds twenty five litres" in text


def test_markdown_drops_the_same_lines_below_the_facts() -> None:
    md = extract_html(SHOP, url=URL, format="markdown").content
    assert "sandwiches stayed" not in md and "Summit Pack 40" not in md
    assert "Padded shoulder straps" in md and "# Trail Pack 25" in md
    assert md.index("**Price:** 89.00 USD") < md.index("easy reach")


def test_a_lost_buy_box_leads_the_content() -> None:
    tree = parse_html(SHOP)
    assert tree is not None
    body = "Keep your gear within easy reach in the Trail Pack: it fits a wide range of bodies."
    assert read_product(tree, URL, "text", body) == f"Trail Pack 25\n$89.00\n{body}"
    md = read_product(tree, URL, "markdown", body)
    assert md is not None and md.startswith("# Trail Pack 25\n\n$89.00\n\n- **Price:** 89.00 USD")
    found = "Trail Pack 25\n$89.00\nKeep your gear within easy reach."
    assert read_product(tree, URL, "text", found) == found
    assert read_product(tree, URL, "html", "<p>Keep your gear</p>") is None


def test_without_a_priced_block_only_the_name_leads() -> None:
    page = (
        """<html><body><div class="top"><h1>Brass Lamp</h1><p>In stock</p></div>
<div class="more"><p>Other lamps from $20 in our catalogue.</p>"""
        + "<p>filler</p>" * 900
        + """
</div></body></html>"""
    )
    tree = parse_html(page)
    assert tree is not None
    body = "A brass desk lamp with a linen shade and a dimmer built into its cord."
    assert read_product(tree, None, "text", body) == f"Brass Lamp\n{body}"


def test_noise_text_skips_the_h1_chain() -> None:
    page = """<html><body><div class="page ratings-enabled"><h1>Lamp</h1>
<p>A brass desk lamp with a linen shade and a dimmer built into its cord.</p>
<div class="rating">4.5 out of 5 stars from 212 ratings</div></div></body></html>"""
    tree = parse_html(page)
    assert tree is not None
    noise = noise_text(tree)
    assert "brassdesklamp" not in noise
    assert "4.5outof5starsfrom212ratings" in noise


def test_reviews_that_are_the_whole_extraction_stay() -> None:
    content = "Great bottle, keeps ice for a day\nLeaks when lying in my bag all day"
    noise = "Greatbottle,keepsiceforaday\nLeakswhenlyinginmybagallday"
    assert without_noise(content, noise) == content
    longer = (
        content + "\n" + "\n".join(f"Double walled steel keeps drinks cold {i}" for i in range(3))
    )
    assert "Great bottle" not in without_noise(longer, noise)


def test_layout_copies_go_but_item_card_attributes_stay() -> None:
    block = "Superfine wool fibres regulate temperature"
    card = "Screen size up to 43 inches"
    content = "\n".join([block, "Size", block, "Size", block, *[card] * 5, "Made in Portugal"])
    assert without_copies(content) == "\n".join(
        [block, "Size", "Size", *[card] * 5, "Made in Portugal"]
    )


def test_short_lines_between_dropped_reviews_go_too() -> None:
    content = "\n\n".join(
        [
            "Keep your gear within easy reach",
            "g",
            "Carried it across the ridge",
            "8",
            "Report",
            "Zipper broke after two weeks",
            "Specifications",
            "Weight is one pound",
        ]
    )
    noise = "CarrieditacrosstheridgeinrainZipperbrokeaftertwoweeksofuse"
    assert without_noise(content, noise) == (
        "Keep your gear within easy reach\n\ng\n\nSpecifications\n\nWeight is one pound"
    )


def _cards_page(h1: str) -> str:
    """A page whose h1 is `h1`, describing the Product "Trail Pack 25", above a row of
    other products' cards in blocks whose classes say nothing."""
    card = """<li class="carousel__item"><a href="/p/{0}"><img src="/i/{0}.jpg" alt="">
<h3>{1}</h3></a><span>{2}</span><span>Free delivery</span></li>"""
    cards = [
        ("41", "Summit Pack 40 with frame and lid", "$129.00"),
        ("42", "Day Pack 18 in recycled nylon", "$59.00"),
        ("43", "Hydration Vest 10 for trail runs", "$99.00"),
        ("44", "Rolltop Pack 30 fully waterproof", "$119.00"),
    ]
    return (
        """<html><head><script type="application/ld+json">{"@type": "Product",
"name": "Trail Pack 25", "offers": {"price": "89.00", "priceCurrency": "USD"}}</script>
</head><body><main><div class="buy"><h1>"""
        + h1
        + """</h1><span class="price">$89.00</span></div>
<p>Keep your gear within easy reach in the Trail Pack 25.</p>
<section><h2>People also viewed</h2><ul class="carousel__list">"""
        + "".join(card.format(*c) for c in cards)
        + "</ul></section></main></body></html>"
    )


CARD_LINES = [
    "Summit Pack 40 with frame and lid $129.00 Free delivery",
    "Day Pack 18 in recycled nylon $59.00 Free delivery",
    "Hydration Vest 10 for trail runs $99.00 Free delivery",
    "Rolltop Pack 30 fully waterproof $119.00 Free delivery",
]


def test_other_products_cards_leave_a_product_page() -> None:
    tree = parse_html(_cards_page("Trail Pack 25"))
    assert tree is not None
    assert "SummitPack40withframeandlid$129.00" in card_text(tree)
    lead = ["Trail Pack 25", "$89.00", "Keep your gear within easy reach."]
    body = "\n".join([*lead, "People also viewed", *CARD_LINES])
    text = read_product(tree, URL, "text", body) or ""
    assert "Keep your gear" in text and "$89.00" in text
    assert not any(line in text for line in CARD_LINES)
    assert "People also viewed" not in text  # the row's title goes with it


def test_a_category_page_keeps_its_cards() -> None:
    # the h1 names a category, not the Product in the page's data: the cards are the content
    tree = parse_html(_cards_page("Backpacks"))
    assert tree is not None
    body = "\n".join(["Backpacks", *CARD_LINES])
    text = read_product(tree, URL, "text", body) or ""
    assert all(line in text for line in CARD_LINES)


def test_a_row_of_options_is_no_row_of_cards() -> None:
    # size buttons with a price each: too few words to be another product's card
    page = """<html><body><h1>Desk</h1><ul class="sizes">
<li><a href="?s=1">48 x 24 +$60</a></li><li><a href="?s=2">60 x 24 +$160</a></li>
<li><a href="?s=3">72 x 24 +$230</a></li></ul></body></html>"""
    tree = parse_html(page)
    assert tree is not None
    assert card_text(tree) == ""


def test_a_review_line_missing_a_badge_still_goes() -> None:
    # the page says "... 4 March 2026 Verified Purchase Great earbuds ..."; the extractor
    # left the badge out of the line, so the line is no longer a substring of the reviews
    said = "Excellent sound Reviewed in the United States on 4 March 2026"
    review = (
        "Great earbuds, the sound is clear and they stay in during a run every morning, and"
        " the case still holds a charge for the whole week of commuting."
    )
    noise = "".join(f"{said} Verified Purchase {review}".split())
    description = "Wireless earbuds with active noise cancellation and a charging case."
    content = "\n".join([description, f"{said} {review}", *[description.upper()] * 3])
    assert f"{said} {review}" not in without_noise(content, noise)
    assert description in without_noise(content, noise)


def test_dropped_leading_lines_leave_no_gap_below_the_facts() -> None:
    tree = parse_html(_cards_page("Trail Pack 25"))
    assert tree is not None
    body = "\n\n".join(["People also viewed", *CARD_LINES, "Keep your gear within easy reach."])
    md = read_product(tree, URL, "markdown", body) or ""
    assert "**Price:** 89.00 USD\n\nKeep your gear" in md
