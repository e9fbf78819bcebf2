"""What extraction keeps beyond articles: every post of a thread, a product's sections, a
documentation page's introduction and code; and what it drops whatever the page calls it."""

import json

import pytest
from steward_websearch.extraction import boilerplate, cleaning, extract, parse

NAV = "<nav><a href='/'>Home</a> <a href='/shop'>Shop</a> <a href='/help'>Help</a></nav>"
COOKIES = (
    "<div role='dialog' class='consent-panel'><p>We use cookies to improve your experience, measure the audience "
    "and show you offers. Accept them all, or choose which ones we may use.</p><button>Accept</button></div>"
)


def markdown(body: str, head: str = "") -> str:
    page = f"<html><head>{head}</head><body>{body}</body></html>".encode()
    return extract(page, url="https://forum.example/t/1", content_type="text/html").markdown


def post(number: int, author: str) -> str:
    return (
        f"<article class='message'><div class='message-user'><h4>{author}</h4>"
        f"<dl><dt>Joined</dt><dd>Mar {number}, 2019</dd></dl><dl><dt>Messages</dt><dd>{number * 37}</dd></dl></div>"
        f"<div class='message-body'><time datetime='2024-05-0{number}'>May {number}, 2024</time>"
        f"<p>Reply {number}: descaling with citric acid, two spoons a litre, left for an hour, worked for me"
        f" on the {number}th try, and the kettle has been quiet since.</p></div>"
        "<div class='message-actions'><a href='#'>Like</a></div></article>"
    )


def test_every_post_of_a_thread_is_kept_in_order_without_the_template_around_it():
    thread = "".join(post(n, author) for n, author in enumerate(["ada", "brook", "cyd", "dee", "eli"], 1))
    text = markdown(f"{NAV}<main><h1>Kettle descaling</h1>{thread}<form><textarea></textarea></form></main>")
    positions = [text.index(f"Reply {n}:") for n in range(1, 6)]
    assert positions == sorted(positions), "posts stay in reading order"
    for author in ["ada", "brook", "cyd", "dee", "eli"]:
        assert author in text
    assert "May 3, 2024" in text
    assert "Joined" not in text, "labels the template repeats on every post go"
    assert "Messages" not in text
    assert "Home" not in text


def test_a_products_description_and_specifications_in_hidden_tabs_are_kept():
    product = (
        "<main><h1>Quiet Kettle 2</h1><p class='price'>€49.00</p>"
        "<div class='tabs'><div class='tab-panel' style='display: none'>"
        "<p>The Quiet Kettle boils a litre in three minutes, at half the noise of an ordinary kettle, and keeps"
        " the water hot for an hour after it has boiled. Its stainless steel body has no plastic where the water"
        " is, and the lid opens wide enough to clean it by hand.</p></div>"
        "<div class='tab-panel' style='display:none'><table><tr><th>Capacity</th><td>1.7 l</td></tr>"
        "<tr><th>Power</th><td>2200 W</td></tr></table></div></div></main>"
    )
    text = markdown(NAV + product + COOKIES)
    assert "boils a litre in three minutes" in text, "hidden prose is a tab's description"
    assert "| Capacity | 1.7 l |" in text
    assert "cookies" not in text, "a dialog is furniture, however much it says"


def test_hidden_prose_waiting_for_a_click_is_never_the_main_content_of_a_grid_of_products():
    cards = "".join(
        f"<div class='card'><a href='/p/{n}'><div class='name'>Laser Projector {n} with 4K and {n}00 lumens</div>"
        f"<div>Item Number: LP-{n}</div><div>Price: ${n},499.00</div></a></div>"
        for n in range(1, 13)
    )
    policy = (
        "<div id='pricing-policy' style='display: none'><h3>Manufacturer's Pricing Policy</h3>"
        "<p>As an authorized dealer, we are bound by agreements with our manufacturers in how we display, price"
        " and sell certain products, and some items may not be advertised below a certain price, or at all.</p>"
        "<p>If a competitor shows a lower price, then that competitor is likely not an authorized dealer, and the"
        " manufacturer may not honour the warranty, or the product was never meant for this market.</p>"
        "<p>If you have any questions about a product, its price or its warranty, do not hesitate to call us,"
        " and we will tell you what we can sell it for.</p></div>"
    )
    text = markdown(f"{NAV}<div class='grid'>{cards}</div>{policy}")
    assert "Laser Projector 1 with 4K" in text, "the hidden dialog's prose outscored the grid and was all there was"
    assert "Laser Projector 12 with 4K" in text
    assert "Price: $7,499.00" in text


def test_a_hidden_menu_is_still_dropped():
    menu = "<div style='display:none'>" + "".join(f"<a href='/c/{n}'>Category number {n}</a> " for n in range(40))
    text = markdown(
        menu + "</div><main><h1>Kettles</h1><p>" + "All about kettles, and why they sing. " * 8 + "</p></main>"
    )
    assert "All about kettles" in text
    assert "Category number" not in text


def test_a_hidden_listing_holding_the_page_is_content_waiting_for_javascript():
    cards = "".join(
        f"<li><a href='/item/{n}'>Kettle model {n}</a><p>Steel, {n + 2} min</p><span>In stock</span></li>"
        for n in range(12)
    )
    text = markdown(f"{NAV}<div style='display:none'><h1>Kettles</h1><ul>{cards}</ul></div>")
    assert "Kettle model 11" in text, "shops ship the grid hidden and show it once loaded"
    assert "Steel, 13 min" in text


def test_a_figure_hidden_from_assistive_technology_is_a_drawing_but_other_aria_hidden_text_is_read():
    drawing = (
        "<figure class='dom-graphic' aria-hidden='true'><div><span>Shipping address</span> <span>Micaela"
        " Patel</span> <span>The Warehouse, 7th Floor, 211 Old Street, London</span></div><div><span>Card number"
        "</span> <span>Expiry date</span> <span>Total due today US$149.00</span></div></figure>"
    )
    text = markdown(
        f"{NAV}<main><h1>Payments</h1><section><h2>Convert more customers</h2><p>Increase conversion with"
        f" built-in optimisations and one-click checkout, online and in person.</p>{drawing}</section>"
        "<div class='slide' aria-hidden='true'><p>Expand to new markets faster by presenting prices in local"
        " currencies.</p></div></main>"
    )
    assert "Increase conversion" in text
    assert "Card number" not in text, "a drawing made of markup says nothing aloud"
    assert "Expand to new markets" in text, "aria-hidden on a slide does not hide it from the eyes"


def test_a_hidden_store_of_fields_is_no_content_waiting_for_javascript_however_much_it_holds():
    fields = "".join(
        f"<dt>cat_thumb_{colour}:</dt><dd>https://cdn.example/thumbs/{colour.lower()}_thumbnail_160x160.jpg</dd>"
        for colour in ["Bone", "Mushroom", "Powder", "Atlantic", "Chestnut", "Ecru", "Pistachio", "Camel"]
    )
    text = markdown(
        f"{NAV}<main><h1>Staple Tee</h1><p>A regular fit in 5.3 oz combed cotton, with neck ribbing and double"
        f" needle hems.</p><dl class='product-info hide'><dt>short_description:</dt><dd>Regular fit</dd>{fields}"
        "</dl></main>"
    )
    assert "A regular fit in 5.3 oz" in text
    assert "Mushroom" not in text, "hidden fields a script reads are no headings, no paragraphs: not content"


def test_a_header_holding_the_title_and_a_written_paragraph_is_the_pages_introduction():
    header = (
        "<div class='layout__header'><h1>Flexbox</h1><ul class='prev-next'><li><a href='/prev'>Previous</a></li>"
        "<li><a href='/next'>Next</a></li></ul><p>Flexbox is a one-dimensional layout method for arranging items"
        " in rows or columns.</p></div>"
    )
    body = (
        "<div class='layout__body'><h2>Why flexbox?</h2>"
        f"<p>{'For a long time, the only reliable tools for layouts were floats and positioning. ' * 4}</p></div>"
    )
    text = markdown(f"<main>{header}{body}</main>")
    assert "Flexbox is a one-dimensional layout method" in text
    assert "only reliable tools" in text


def test_prose_under_a_layout_word_is_kept_but_not_under_comments():
    intro = (
        "<div class='layout__header'><p>The WebSocket object provides the API for creating and managing a"
        " connection to a server, as well as for sending and receiving data on the connection. To construct one,"
        " use its constructor with the address of the server and, if needed, the protocols it speaks.</p></div>"
    )
    body = (
        "<div class='layout__body'><h2>Constructor</h2><p>WebSocket() returns a newly created WebSocket, connected"
        " to the address it was given, and starts the opening handshake at once, without waiting.</p>"
        "<pre><code class='language-js'>const socket = new WebSocket('wss://example.org');</code></pre></div>"
    )
    comments = (
        "<div class='comments'><p>I have used this object for years, and the one thing I wish it had is a way to"
        " apply backpressure, which it does not have; a shame, but you get used to it after a while.</p></div>"
    )
    text = markdown(f"<main>{intro}{body}</main>{comments}")
    assert "provides the API for creating" in text
    assert "```js\nconst socket" in text
    assert "backpressure" not in text


def test_a_card_named_for_navigation_that_describes_a_service_is_kept_but_a_menu_is_not():
    services = [
        (
            "Descaling",
            "We descale kettles, coffee machines and boilers at your home, with citric acid, never vinegar, in an hour.",
        ),
        (
            "Repairs",
            "A broken switch, a leaking seam or a dead element: we repair it within two working days, parts included.",
        ),
        (
            "Rentals",
            "Borrow a kettle while yours is in the workshop, delivered the same day, at no extra charge, for a week.",
        ),
    ]
    cards = "".join(
        f"<div class='m-nestedNavCard__wrapper'><h3><a href='/{name.lower()}'>{name}</a></h3><p>{said}</p></div>"
        for name, said in services
    )
    menu = (
        "<div class='mega-nav'><h3>Shop</h3><p>Kettles, toasters and their spare parts, sent the next day.</p>"
        "<ul><li><a href='/kettles'>Kettles</a></li><li><a href='/toasters'>Toasters</a></li></ul></div>"
    )
    intro = (
        "<p>Kettle Care keeps the kettles of the valley boiling, from the first descale to the last repair.</p>" * 3
        + "<p>Thirty years on, the workshop on Mill Lane still answers the phone itself, and still comes to you.</p>"
        * 3
    )
    text = markdown(f"<main><h1>Our services</h1>{intro}<div class='o-nestedNavCardGrid'>{cards}</div>{menu}</main>")
    for name, said in services:
        assert said in text, name
    assert "spare parts" not in text, "a menu says a line of its pages, no more"


def test_a_refrain_the_author_repeats_is_kept():
    verse = "<p>Every morning the kettle sings its song to the sleeping house, and nobody minds.</p>"
    refrain = "<p>Sing, kettle, sing.</p>"
    text = markdown("<article>" + (verse + refrain) * 4 + "</article>")
    assert text.count("Sing, kettle, sing.") == 4


def test_a_page_without_one_main_block_is_read_from_its_main_landmark():
    cards = "".join(
        f"<div class='card'><h3>Kettle {n}</h3><span>€{n}9</span><a href='/k/{n}'>Details</a></div>" for n in range(6)
    )
    footer_links = "<div class='site-links'>" + "".join(f"<a href='/l/{n}'>Link {n}</a> " for n in range(30)) + "</div>"
    text = markdown(f"<div class='top-links'>{footer_links}</div><main><h1>All kettles</h1>{cards}</main>")
    assert "Kettle 5" in text
    assert "€59" in text
    assert "Link 12" not in text


def test_links_for_moving_around_the_page_are_dropped():
    prose = "<p>" + "The kettle sings before it boils, because bubbles collapse as they rise. " * 4 + "</p>"
    text = markdown(
        "<a href='#main'>Skip to content</a><main id='main'><article>"
        f"{prose}<p>See <a href='#notes'>the notes</a>.</p><a href='#top'>Back to top</a>"
        "<p><a href='#start'>Zurück zum Inhaltsverzeichnis</a></p><p><a href='#top'>Haut de page</a></p>"
        "<p><a href='#arriba'>Volver arriba</a></p></article></main>"
    )
    assert "Skip to content" not in text
    assert "Back to top" not in text
    assert "Inhaltsverzeichnis" not in text, "pages say it in their language"
    assert "Haut de page" not in text
    assert "Volver arriba" not in text
    assert "See the notes." in text, "an in-page link that is prose stays"


DOC_PROSE = (
    "<p>Install the client, then open a session with your key; the session keeps one connection, retries"
    " once on a dropped line, and closes itself when the block ends, so nothing is left open.</p>"
)


def test_code_is_never_taken_for_layout():
    lines = "".join(
        f"<div class='line'>{line}</div>" for line in ["{", '"card": {', "}", '"card": {', "}", '"card": {']
    )
    text = markdown(
        f"<main><article><h2>Install</h2>{DOC_PROSE}<div class='highlight'><pre>pip install k</pre></div>"
        f"{DOC_PROSE}<pre><code>{lines}</code></pre></article></main>"
    )
    assert "pip install k" in text, "a short command in a wrapper is not a too-short block"
    assert text.count('"card": {') == 3, "a repeated line of code is not a template label"


def test_a_references_short_notes_on_versions_are_kept_and_short_labels_are_not():
    def function(name: str, note: str) -> str:
        return (
            f"<dl class='py function'><dt class='sig'>kettle.{name}(water)</dt><dd>{DOC_PROSE}"
            f"<div class='versionadded'><p><span class='versionmodified added'>{note}</span></p></div>"
            "<div class='toolbar'><p>Copy link</p></div></dd></dl>"
        )

    text = markdown(
        "<main><h1>kettle</h1>"
        + function("boil", "Added in version 3.7.")
        + function("pour", "Changed in 3.12.")
        + "</main>"
    )
    assert "Added in version 3.7." in text, "a sentence is written, however short"
    assert "Changed in 3.12." in text
    assert "Copy link" not in text, "a short label is no sentence"


def test_each_functions_signature_in_an_api_reference_is_kept():
    def method(name: str, since: str) -> str:
        return (
            f"<details class='toggle method-toggle' open><summary><section id='method.{name}' class='method'>"
            f"<span class='rightside'><span class='since'>{since}</span> · <a class='src' href='/src/kettle.rs'>"
            f"Source</a></span><h4 class='code-header'>pub fn <a href='#method.{name}' class='fn'>{name}</a>"
            "(self, f: impl <a class='trait' href='/ops/trait.FnOnce.html'>FnOnce</a>(T) -&gt; "
            "<a class='primitive' href='/primitive.bool.html'>bool</a>) -&gt; "
            "<a class='primitive' href='/primitive.bool.html'>bool</a></h4></section></summary>"
            f"<div class='docblock'><p>Returns whether the kettle's {name} holds, as the predicate reads it.</p>"
            "<pre><code>assert!(kettle.boiled());</code></pre></div></details>"
        )

    text = markdown(
        "<main><h1>Struct Kettle</h1><h2 id='implementations' class='section-header'>Implementations</h2>"
        + method("is_boiled_and", "1.70.0 (const: <a href='https://tracker.example/1'>unstable</a>)")
        + method("is_empty_or", "1.82.0")
        + DOC_PROSE
        + "</main>"
    )
    assert "pub fn is\\_boiled\\_and(self, f: impl [FnOnce]" in text, (
        "a stability link does not make a signature a link list"
    )
    assert "pub fn is\\_empty\\_or(self" in text
    assert "as the predicate reads it" in text
    assert "Source" not in text, "where the code is kept is a mark beside it"
    assert "1.82.0" not in text, "and so is the release it came in"


def test_a_variants_description_is_kept_however_short():
    def variant(name: str, description: str) -> str:
        return (
            f"<section id='variant.{name}' class='variant'><a href='#variant.{name}' class='anchor'>§</a>"
            f"<span class='since rightside'>1.0.0</span><h3 class='code-header'>{name}(T)</h3></section>"
            f"<div class='docblock'><p>{description}</p></div>"
        )

    text = markdown(
        f"<main><h1>Enum Outcome</h1>{DOC_PROSE}<h2 id='variants' class='variants section-header'>Variants</h2>"
        f"<div class='variants'>{variant('Boiled', 'Contains the boiled water')}{variant('Dry', 'Holds the error')}"
        f"</div>{DOC_PROSE}</main>"
    )
    assert "Contains the boiled water" in text
    assert "Holds the error" in text, "what a reference says of a declaration is no scrap"


def test_a_heading_is_kept_whether_it_links_to_itself_or_away():
    text = markdown(
        f"<main><article><h2 id='setup'><a href='#setup'>Setting up</a></h2>{DOC_PROSE}"
        "<h3><a href='/guide/cleaning'>Cleaning the filter</a></h3><ol><li>Unplug the kettle and let it cool</li>"
        "<li>Rinse the filter under the tap</li><li>Dry it before it goes back</li></ol></article></main>"
    )
    assert "## Setting up" in text
    assert "### [Cleaning the filter](https://forum.example/guide/cleaning)" in text, "the title of what it heads"
    steps = "<ul><li>Sit comfortably</li><li>Close your eyes</li><li>Count ten breaths</li></ul>"
    text = markdown(
        f"<main><article>{DOC_PROSE}<h2><a name='step-1'>Step one: the posture</a></h2>{steps}</article></main>"
    )
    assert "## Step one: the posture" in text, "a named anchor without href leads nowhere"


def test_a_section_named_like_furniture_is_kept_on_a_page_that_is_not_an_article():
    product = (
        "<main><div class='product'><h1>Quiet Kettle 2</h1><div class='price'>€49.00, free delivery</div>"
        "<ul class='product-details'>" + "".join(f"<li>Detail {n}: steel, glass</li>" for n in range(6)) + "</ul>"
        "<div class='product-meta'><span>Capacity: 1.7 litres</span> <span>Power: 2200 W</span></div>"
        "<div class='product-text'>The Quiet Kettle boils a litre in three minutes, at half the noise of an ordinary"
        " kettle, and keeps the water hot for an hour.</div></div></main>"
    )
    assert "Capacity: 1.7 litres" in markdown(product), "on a product page 'meta' names a section"
    article = (
        "<main><article><h1>How kettles sing</h1>"
        + DOC_PROSE * 3
        + "<div class='post-meta'>Filed under: kitchens</div>"
        + DOC_PROSE
        + "</article></main>"
    )
    assert "Filed under" not in markdown(article), "in an article it is the byline and the tags"


SIZE_GUIDE = (
    "<div role='dialog' aria-hidden='true' class='drawer'><h2>Size guide</h2><table>"
    "<tr><th>Size</th><th>Width</th></tr><tr><td>Twin</td><td>39 in</td></tr><tr><td>King</td><td>76 in</td></tr>"
    "</table></div>"
)
KETTLE_PROSE = (
    "<p>The Quiet Kettle boils a litre in three minutes, at half the noise of an ordinary kettle, and keeps the"
    " water hot for an hour after it has boiled.</p>"
)


def kettle_article(after: str) -> str:
    """The Markdown of an article of one paragraph, ``after`` it what a test looks at."""
    return markdown(f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}{after}</article>")


def test_a_dialog_inside_the_main_landmark_is_content_opened_on_demand():
    product = f"<main><h1>Sheet set</h1><p class='price'>$129</p>{KETTLE_PROSE}{SIZE_GUIDE}</main>"
    text = markdown(NAV + product + COOKIES)
    assert "| Twin | 39 in |" in text, "a product's size guide opens in a drawer"
    assert "cookies" not in text, "a dialog outside main is the site's, not the page's"
    declared = "<meta property='og:type' content='article'>"
    article = f"<main><h1>Kettles</h1>{KETTLE_PROSE * 3}<div role='dialog'><p>Republish this story: credit us"
    article += " and link back to the article, and keep the author's byline as it stands.</p></div></main>"
    assert "Republish" not in markdown(article, declared), "an article's dialogs are about the site"


def test_a_modal_is_a_place_content_is_shown_not_a_kind_of_boilerplate():
    details = (
        f"<main><h1>KALLAX shelf unit</h1><p>$79.99</p>{KETTLE_PROSE}<ul><li>White</li><li>Oak</li><li>Black</li></ul>"
        "<div class='product-details-modal'><h2>Product details</h2>"
        "<p>Place it standing or lying.</p><p>Designer: Tord Björklund</p></div></main>"
    )
    assert "Designer: Tord Björklund" in markdown(details)


def test_an_element_hidden_by_its_class_is_dropped_unless_it_is_content():
    page = (
        "<main><h1>Pest control</h1><ul><li>Ants, wasps and mice, inside and out</li><li>Four visits a year</li>"
        "<li>Free re-treatment between visits</li></ul><div class='pricing-panel hide'><h2>What is your"
        " address?</h2><label>Street</label><label>City</label></div><div class='tab hidden'><table><tr><th>Plan"
        "</th><td>$50 a month</td></tr><tr><th>Visits</th><td>4 a year</td></tr></table></div>"
        "<div class='hidden md:block'>Shown from medium screens up.</div></main>"
    )
    text = markdown(page)
    assert "What is your address" not in text
    assert "| Plan | $50 a month |" in text, "a hidden table of figures is a tab's content"
    assert "Shown from medium screens up" in text, "a responsive class hides only on some screens"


def test_an_accordions_questions_set_in_the_buttons_that_open_them_are_kept():
    items = "".join(
        f"<div class='accordion-item'><h2 class='accordion-header'><button class='accordion-button collapsed'"
        f" type='button' data-bs-toggle='collapse' data-bs-target='#answer-{n}'><svg><path d='M0'/></svg>"
        f"{question}</button></h2><div id='answer-{n}' class='accordion-collapse collapse'><div"
        f" class='accordion-body'>{answer}</div></div></div>"
        for n, (question, answer) in enumerate(
            [
                ("How long does descaling take?", "An hour with citric acid, two spoons a litre."),
                ("Does the kettle need filtered water?", "No, but hard water means descaling every month."),
                ("Is the lid dishwasher safe?", "Yes, on the top rack, below 60 degrees."),
            ]
        )
    )
    text = markdown(
        f"<main><h1>Quiet Kettle 2</h1><p>{'The kettle that does not sing, in steel and glass. ' * 3}</p>"
        f"<div class='accordion'>{items}</div><button class='btn'>Add to cart</button></main>"
    )
    assert "## How long does descaling take?" in text, "the question is the heading's text"
    assert "## Is the lid dishwasher safe?" in text
    assert "An hour with citric acid" in text
    assert "Add to cart" not in text, "a button that is no heading's text says what it does"


def test_a_button_beside_a_headings_own_words_is_a_control():
    text = markdown(
        "<main><h2>Enum Result <button id='copy-path' title='Copy item path to clipboard'>Copy item path</button>"
        f"</h2><p>{'Result is the type used for returning and propagating errors, Ok or Err. ' * 4}</p>"
        "<h2>Average ratings <button class='link'>See more</button></h2>"
        f"<p>{'Four and a half stars from two hundred reviews, most of them about the noise. ' * 3}</p>"
        "<h2><button aria-expanded='false'>Is the lid dishwasher safe?</button></h2><p>Yes, on the top rack.</p></main>"
    )
    assert "## Enum Result" in text
    assert "Copy item path" not in text, "the button says what it does, not what the heading says"
    assert "## Average ratings" in text
    assert "See more" not in text
    assert "## Is the lid dishwasher safe?" in text, "a heading set in its button has its words there"


def test_the_panels_a_reader_opens_are_kept_but_hidden_menus_modals_and_copies_are_not():
    page = (
        "<main><h1>Online certificates</h1><p>Short courses that end in a certificate you can show.</p>"
        "<div class='faq__question'>What is an online certificate?</div>"
        "<div class='faq__answer' style='display: none'>A short programme of study, online and at your own"
        " pace, that ends with an assessment.</div>"
        "<button aria-controls='panel-2' aria-expanded='false'>Details</button>"
        "<div style='display:none'><div id='panel-2'>Twelve lessons of twenty minutes each.</div></div>"
        "<div class='tab-panel'>Feeders for every garden.</div>"
        "<div class='tab-panel' style='display:none'>Add-ons: perches, roofs and seed cakes.</div>"
        "<div class='tab-panel' style='display:none'>Feeders for every garden.</div>"
        "<div class='menu-panel' style='display:none'><a href='/a'>All courses</a> <a href='/b'>All subjects</a></div>"
        "<div class='tab-panel modal' style='display:none'>Sign up for our newsletter.</div>"
        "<p>Where should we send it?</p><div class='address-modal hide'>Sorry, we could not check that address.</div>"
        "<div>Can a certificate be shared?</div><time class='d-none'>2021-12-06T21:39:10.16Z+00:00</time>"
        "</main>"
    )
    text = markdown(page)
    assert "A short programme of study" in text, "an FAQ's answer is hidden under its question"
    assert "Twelve lessons" in text, "a control opens the one element the hidden panel wraps"
    assert "Add-ons: perches" in text, "a tab's panel is hidden beside the open one"
    assert text.count("Feeders for every garden") == 1, "a hidden copy of the open tab is a copy"
    assert "All courses" not in text, "a hidden panel of links is a menu"
    assert "newsletter" not in text, "a modal waits to interrupt"
    assert "could not check" not in text
    assert "2021-12-06" not in text, "a hidden date after a question is no answer"


def test_a_popover_is_hidden_until_something_opens_it():
    page = (
        "<main><h1>Roadmap</h1><p>Is there a roadmap for the next releases? The forum only lists the changes to"
        " products already out, and we plan our shop a year ahead, so a date for the new checkout would help."
        " Thank you!</p></main>"
        "<div popover><h2>Install the app</h2><p>Tap the share icon in the browser, scroll the menu, and tap Add"
        " to Home Screen; then tap Add in the top-right corner, and confirm by tapping Install.</p></div>"
    )
    text = markdown(page)
    assert "roadmap for the next releases" in text
    assert "Install the app" not in text


def test_an_id_that_spells_its_sections_heading_names_a_subject_not_a_role():
    def section(slug: str, title: str) -> str:
        return (
            f"<section id='s-{slug}'><span id='{slug}'></span><h3><code>{title}</code></h3><p>Returns a QuerySet"
            f" that follows foreign keys; {title} selects the related objects in the same query.</p></section>"
        )

    introduction = (
        "<p>" + "A QuerySet can be built, filtered, sliced and passed around without touching the database. " * 6
    )
    page = (
        f"<main><h1>QuerySet API reference</h1>{introduction}</p>{section('prefetch-related', 'prefetch_related()')}"
        "<div id='related-products'><h2>Related products</h2><p><a href='/a'>A desk lamp</a>, "
        "<a href='/b'>A footrest</a></p></div>"
        "<section id='cookies'><h2>Cookies</h2><p>To read cookies use the request's cookies attribute.</p>"
        "<pre>username = request.cookies.get('username')</pre></section>"
        "<div id='cookie'><h2>Cookies</h2><p>We use cookies to measure the audience.</p></div></main>"
    )
    text = kept_after_boilerplate(page)
    assert "prefetch_related() selects the related objects" in text, "no related-links rail"
    assert "A desk lamp" not in text, "a heading that opens with the role names the role"
    assert "request.cookies.get" in text, "unless the section holds code: a guide's section on cookies"
    assert "measure the audience" not in text


def cleaned(body: str) -> str:
    content = parse.parse_html(f"<html><body><div id='content'>{body}</div></body></html>").find("body")[0]
    cleaning.clean(content, article=False)
    return " ".join("".join(content.itertext()).split())


def card(number: int) -> str:
    return (
        f"<div class='card'><div class='card-body'><a href='/p/{number}'>Quiet Kettle {number}</a>"
        f"<div class='card-meta'><span>€{40 + number}.00</span> <a href='/p/{number}#reviews'>{number} reviews</a>"
        "</div></div></div>"
    )


def test_the_cards_of_a_listing_are_its_content_however_many_links_they_hold():
    intro = "<h1>Kettles</h1><p>Kettles that boil a litre in three minutes, with no plastic where the water is.</p>"
    text = cleaned(f"{intro}<div class='grid'>{''.join(card(n) for n in range(1, 9))}</div>")
    assert "Quiet Kettle 8€48.00 8 reviews" in text, "cards alike that hold most of the content are the listing"
    items = "".join(f"<li>{card(n)}</li>" for n in range(1, 9))
    assert "Quiet Kettle 8€48.00" in cleaned(f"{intro}<ul class='results'>{items}</ul>"), "items of a list are alike"
    story = "<p>" + "The kettle sings because steam bubbles collapse against the cold water above them. " * 8
    text = cleaned(
        f"<h1>Why kettles sing</h1>{story}</p><div class='rail'>{''.join(card(n) for n in range(1, 4))}</div>"
    )
    assert "Quiet Kettle" not in text, "a few cards of links beside a story are a rail"
    posts = "".join(
        f"<div class='post'><div class='post-number'><a href='#p{n}'>#{n}</a></div><div class='post-body'>"
        + f"Reply {n}: two spoons of citric acid in a litre of water, left for an hour, then rinsed. " * 4
        + "</div></div>"
        for n in range(1, 5)
    )
    assert "#3" not in cleaned(posts), "posts are no cards: their numbers go as any short block does"


def test_a_listing_that_calls_itself_an_article_keeps_its_cards_when_there_are_many():
    intro = "<h1>Kettles of the year</h1><p>Kettles that boil a litre in three minutes, with no plastic inside.</p>"
    content = parse.parse_html(
        f"<html><body><div id='content'>{intro}<div class='grid'>{''.join(card(n) for n in range(1, 13))}</div>"
        "</div></body></html>"
    ).find("body")[0]
    cleaning.clean(content, article=True)
    text = " ".join("".join(content.itertext()).split())
    assert "Quiet Kettle 12€52.00 12 reviews" in text, "ten or more cards alike holding most of it are a listing"
    story = "<p>The kettle sings because steam bubbles collapse against the cold water above them."
    content = parse.parse_html(
        f"<html><body><div id='content'><h1>Why kettles sing</h1>{story}</p><div class='rail'>"
        f"{''.join(card(n) for n in range(1, 7))}</div></div></body></html>"
    ).find("body")[0]
    cleaning.clean(content, article=True)
    assert "Quiet Kettle" not in " ".join("".join(content.itertext()).split()), "a rail beside a story is no listing"


def test_the_block_holding_a_products_title_is_the_product_not_its_gallery():
    thumbnails = "".join(f"<img src='/img/{n}.jpg' alt='Toolkit, view {n}'>" for n in range(1, 9))
    product = (
        f"<div class='product-top'>{thumbnails}<h1>Essential Electronics Toolkit</h1><p>$29.95</p>"
        "<div>Everything you need to open and repair phones, consoles and laptops.</div></div>"
    )
    gallery = f"<div class='gallery'>{thumbnails}<div>Photos: the toolkit from every side</div></div>"
    text = cleaned(f"<p>{'Repair is a right, and the kit makes it easy. ' * 3}</p><div>{product}{gallery}</div>")
    assert "Everything you need to open and repair" in text
    assert "$29.95" in text
    assert "from every side" not in text, "pictures and a caption are a gallery"


def test_a_products_buy_box_apart_from_its_description_comes_with_it_when_the_page_declares_its_price():
    def page(declared_price: str, shown_price: str) -> str:
        offer = json.dumps({"@type": "Product", "name": "Quiet Kettle", "offers": {"price": declared_price}})
        pictures = "".join(f"<img src='/k/{n}.jpg' alt='The kettle, view {n}'>" for n in range(6))
        buy_box = (
            f"<div class='buy'><h1>Quiet Kettle</h1><div class='stars'>4.8 (1,204 reviews)</div>"
            f"<div class='price'>{shown_price}</div><button>Add to cart</button></div>"
        )
        description = f"<div class='description'><h2>About the kettle</h2>{KETTLE_PROSE * 4}</div>"
        return markdown(
            f"{NAV}<main><div class='gallery'>{pictures}</div>{buy_box}<div class='tabs'>{description}</div></main>",
            f"<title>Quiet Kettle</title><script type='application/ld+json'>{offer}</script>",
        )

    text = page("1299.00", "Now €1.299,00")
    assert "Now €1.299,00" in text
    assert text.index("Now €1.299,00") < text.index("boils a litre"), "the buy box stands before the description"
    assert "Add to cart" not in text
    assert "1,204 reviews" not in text, "the price is taken, not the buy box's every line"
    assert "€1.299,00" not in page("1150.00", "Now €1.299,00"), "only the price the page declares"
    assert "€1.299,00" not in page("", "Now €1.299,00")


def test_a_headed_section_among_its_pictures_is_the_products_own_on_a_page_that_is_no_article():
    pictures = "".join(f"<img src='/img/jimmy-{n}.png' alt='Jimmy, view {n}'>" for n in range(1, 6))
    section = f"<section>{pictures}<h2>Jimmy</h2><div>Flexible steel blade for precise prying.</div></section>"
    specifications = "".join(
        f"<tr><th>{name}</th><td>{value}</td></tr>"
        for name, value in [("Bits", "64 precision bits, 4 mm"), ("Case", "Zippered, 1.2 kg"), ("Warranty", "Lifetime")]
    )
    page = (
        f"<h1>Pro Tech Toolkit</h1><div class='price'>$74.99</div><div>{section}<table>{specifications}</table></div>"
    )
    assert "Flexible steel blade" in cleaned(page), "a section with its heading is the product's, pictures or not"
    story = f"<p>{'Repair is a right, and the kit makes it easy. ' * 3}</p><div>{section}</div>"
    content = parse.parse_html(f"<html><body><div id='content'>{story}</div></body></html>").find("body")[0]
    cleaning.clean(content, article=True)
    assert "Flexible steel blade" not in "".join(content.itertext()), "beside a story, headed pictures are a gallery"


def test_a_list_of_sources_each_with_its_note_is_written_and_a_list_of_links_is_not():
    sources = (
        "<ul><li><a href='/arbor'>Arbor Day Foundation, climate and tree resources</a> – planting trees and"
        " hardiness zones</li><li><a href='/noaa'>NOAA Climate.gov, the climate data portal</a> – maps and data"
        " on the climate</li><li><a href='/epa'>EPA, what you can do about climate change</a> – at home, at"
        " work, on the road</li></ul>"
    )
    links = "<ul><li><a href='/a'>Climate</a></li><li><a href='/b'>Trees</a></li><li><a href='/c'>Data</a></li></ul>"
    story = "<p>" + "Planting a tree is the oldest way to store carbon. " * 6 + "</p>"
    text = cleaned(f"{story}<div>{sources}{links}</div>")
    assert "maps and data on the climate" in text, "a writer's annotated list of sources"
    assert "NOAA Climate.gov" in text
    assert "Trees" not in text, "a list that is only its links is a link list"
    reading = "".join(
        f"<li><a href='/wiki/{n}'>{title}</a> by {author}</li>"
        for n, (title, author) in enumerate(
            [("Tuning Your Kettle", "Greg Smith"), ("Descaling", "Frank Wiles"), ("Quiet Boiling", "Devart")]
        )
    )
    text = cleaned(f"{story}<div><ul>{reading}</ul></div>")
    assert "Descaling by Frank Wiles" in text, "a reading list names its authors: a note of its own, however short"


def test_a_sheet_inside_a_drawer_is_the_drawers_content():
    drawer = (
        "<div role='dialog' class='sheet'><aside class='sheet-aside'><h2>Description</h2><ul><li>Slim fit</li>"
        "<li>Sweat-wicking</li><li>100% polyester</li></ul></aside></div>"
    )
    text = markdown(f"<main><h1>Arrival T-Shirt</h1><p>$22</p>{drawer}</main><aside>Recently viewed: socks</aside>")
    assert "- Sweat-wicking" in text
    assert "Recently viewed" not in text, "an aside outside a drawer is still furniture"


def test_layout_words_run_into_others_are_still_read():
    footer = "<div id='brdfooter'><p>Powered by a forum engine, version 1.5, all rights reserved.</p></div>"
    menu = "<div class='menuwrap'><p>Residential, commercial, termite and wildlife control.</p></div>"
    related = "<div class='jp-relatedposts'><p>Spring cleaning for gutters, with a ladder and a bucket.</p></div>"
    page = (
        f"<main><h1>Pest control</h1><p>{'Four visits a year, inside and out. ' * 6}</p>{menu}{footer}{related}</main>"
    )
    text = markdown(page)
    assert "Four visits a year" in text
    assert "Powered by" not in text
    assert "termite and wildlife" not in text
    assert "Spring cleaning" not in text


def test_a_docbook_navigation_header_is_navigation():
    header = (
        "<div class='navheader'><table><tr><th colspan='5'>Chapter 11. Indexes</th></tr><tr>"
        "<td><a href='prev.html'>Prev</a></td><td><a href='up.html'>Up</a></td><th>Part II. The SQL Language</th>"
        "<td><a href='index.html'>Home</a></td><td><a href='next.html'>Next</a></td></tr></table></div>"
    )
    chapter = f"<div class='chapter'><h2>Chapter 11. Indexes</h2><p>{'Indexes speed up reads. ' * 8}</p></div>"
    text = markdown(f"<div id='docContent'>{header}{chapter}</div>")
    assert "Indexes speed up reads." in text
    assert "Part II" not in text
    assert "Prev" not in text


def test_a_list_of_the_page_in_other_languages_is_navigation():
    languages = {"af": "Afrikaans", "de": "Deutsch", "fr": "Français", "ja": "日本語", "ar": "العربية"}
    switcher = "".join(
        f"<li><a href='https://{code}.wiki.example/Liste' hreflang='{code}' lang='{code}'>{name}</a></li>"
        for code, name in languages.items()
    )

    def section(letter: str, languages: list[tuple[str, int]]) -> str:
        items = "".join(f"<li><a href='/wiki/{name}'>{name}</a> ({year})</li>" for name, year in languages)
        return f"<section><h2>{letter}</h2><ul>{items}</ul></section>"

    sections = (
        section("A", [("Ada", 1980), ("APL", 1966), ("AWK", 1977)])
        + section("B", [("B", 1969), ("BASIC", 1964), ("BCPL", 1967)])
        + section("C", [("C", 1972), ("COBOL", 1959), ("Curl", 1998)])
    )
    text = markdown(f"<main><h1>List of programming languages</h1><div><ul>{switcher}</ul></div>{sections}</main>")
    assert "[APL](https://forum.example/wiki/APL) (1966)" in text, "links without languages stay"
    assert "Deutsch" not in text
    assert "日本語" not in text


def test_links_in_one_language_are_no_language_switcher():
    links = "".join(
        f"<li><a href='/guides/{n}' lang='en'>Guide {n}</a>: planting seedlings out in week {n + 2}, after the frost</li>"
        for n in range(4)
    )
    story = f"<p>{'Sow the seeds indoors six weeks before the last frost, then harden them off. ' * 4}</p>"
    text = markdown(
        f"<main><article><h1>Seedlings</h1>{story}<p>Read next:</p><ul>{links}</ul>{story}</article></main>"
    )
    assert "Guide 3" in text


def test_a_heading_or_a_one_link_paragraph_in_a_wrapper_of_its_own_is_kept():
    blocks = "".join(
        f"<div class='block'>{inner}</div>"
        for inner in [
            "<h2>About</h2>",
            f"<p>{'An app whose icon is the art: artists rent one of 99 exhibits, visitors buy copies. ' * 3}</p>",
            "<p><a href='https://mschf.example/'>MSCHF</a></p>",
            f"<p>{'An art collective that makes provocative projects about consumerism. ' * 3}</p>",
        ]
    )
    text = markdown(f"<main><article>{blocks}</article></main>")
    assert "## About" in text
    assert "[MSCHF](https://mschf.example/)" in text


def test_the_second_copy_of_a_block_shown_once_per_screen_size_is_dropped():
    description = f"{KETTLE_PROSE}<p>Handmade stoneware, 350 ml.</p>"
    page = f"<main><h1>Speckle mug</h1><p>$60</p><div class='description mobile-only'>{description}</div>"
    page += f"<p>Choose a colour: white or black.</p><div class='description desktop-only'>{description}</div></main>"
    text = markdown(page)
    assert text.count("boils a litre") == 1
    assert text.index("boils a litre") < text.index("Choose a colour"), "the first copy is the one kept"


ANSWER = (
    "<p>I have descaled this kettle every month for two years. Citric acid, two spoons a litre, left"
    " for an hour, then a rinse: the element comes out clean and the kettle is quiet again.</p>"
    "<p>Vinegar works too, but the smell stays for days.</p>"
)


def test_a_preview_cut_short_goes_when_the_whole_text_follows():
    def answer(number: int, author: str, cut_after: str, mark: str) -> str:
        text = ANSWER.replace("this kettle", f"kettle number {number}")
        preview = text[: text.index(cut_after) + len(cut_after)] + mark + "</p>"
        return (
            f"<article class='message'><h4>{author}</h4><div class='message-body'><div class='preview'>{preview}"
            f"</div><div class='expanded'>{text}</div></div></article>"
        )

    thread = answer(1, "ada", "then a rin", "") + answer(2, "brook", "comes out clean", "…")
    thread += answer(3, "cyd", "then a rinse:", " (more)")
    text = markdown(f"<main><h1>Kettle descaling</h1>{thread}</main>")
    for number in (1, 2, 3):
        assert text.count(f"I have descaled kettle number {number}") == 1, "each answer once, whole"
    assert text.count("the smell stays for days") == 3
    for cut in ("rin\n", "…", "(more)"):
        assert cut not in text


def test_a_reply_quoting_the_whole_post_and_tabs_side_by_side_are_not_previews():
    post = f"<article class='post'>{ANSWER}</article>"
    reply = (
        f"<article class='post'>{ANSWER}<p>Thanks, citric acid it is, then; my kettle is quiet again too.</p></article>"
    )
    text = markdown(f"<main><h1>Kettle descaling</h1>{post}{reply}</main>")
    assert text.count("I have descaled this kettle") == 2
    tab = "<div class='tab'><p>Descale with citric acid, two spoons a litre, for an hour, and rinse twice after it.</p><p>See the guide</p></div>"
    tabs = (
        f"<div class='tabs'>{tab}<div class='tab'><p>Filters</p><p>Change the filter every six months.</p></div></div>"
    )
    text = markdown(f"<main><h1>Kettle care</h1>{tab}{tabs}<p>Questions? Write to us.</p></main>")
    assert "Descale with citric acid" in text


def test_a_paragraph_the_author_repeats_and_a_distant_repeat_are_kept():
    day = (
        "<p>Lunch: chicken zoodles, one cup of zucchini noodles with peanut sauce, four ounces of chicken"
        " and a spoon of sesame.</p>"
    )
    plan = "".join(f"<h2>Day {n}</h2>{day}<p>Dinner {n}: something else, every day of the week.</p>" for n in (1, 2, 3))
    assert markdown(f"<main><article>{plan}</article></main>").count("chicken zoodles") == 3
    field = (
        "<div class='field'><h5>amount</h5><p>Amount intended to be collected, in cents: 100 for $1.00, 100 for ¥100"
    )
    field += " (a zero-decimal currency), and at least 50 cents in whatever currency you charge in.</p></div>"

    def section(name: str) -> str:
        own = "".join(
            f"<div class='field'><h5>{name}_{n}</h5><p>The {name}'s field number {n}, which says more, at some length,"
            f" about the {name}, the way reference pages do, with commas, clauses, and examples.</p></div>"
            for n in range(3)
        )
        return (
            f"<section><h2>The {name}</h2><div><h3>{name} parameters</h3><div><h4>{name} body</h4>"
            f"<div><h5>{name} fields</h5>{field}{own}</div></div></div></section>"
        )

    docs = f"<main><h1>Payments</h1>{section('request')}{section('response')}</main>"
    assert markdown(docs).count("Amount intended") == 2


def test_a_figure_keeps_its_picture_and_loses_its_caption():
    figure = (
        "<figure><img src='/lander.jpg' alt='Blue Moon lander'><figcaption>An artist's concept of the lander."
        " (Image credit: Blue Origin)</figcaption></figure>"
    )
    text = markdown(f"<main><article><h1>Moon landers</h1>{KETTLE_PROSE}{figure}{KETTLE_PROSE}</article></main>")
    assert "![Blue Moon lander](https://forum.example/lander.jpg)" in text
    assert "Image credit" not in text


def test_the_caption_of_a_figure_showing_code_or_a_table_titles_it_and_stays():
    code = "<figure class='listing'><pre><code>let s = \"hello\";</code></pre><figcaption><a href='#l1'>Listing 4-1</a>: A variable and its scope</figcaption></figure>"
    table = "<figure><table><tr><th>Size</th><th>Chest</th></tr><tr><td>M</td><td>96</td></tr></table><figcaption>Table 2: Sizes in centimetres</figcaption></figure>"
    text = markdown(f"<main><article><h1>Ownership</h1>{KETTLE_PROSE}{code}{KETTLE_PROSE}{table}</article></main>")
    assert "Listing 4-1: A variable and its scope" in text
    assert "Table 2: Sizes in centimetres" in text


ARTICLE_TYPE = "<meta property='og:type' content='article'>"


def test_the_body_the_page_declares_is_read_whole_around_its_embeds():
    def chunk(day: str, paragraphs: int) -> str:
        text = "".join(
            f"<p>{day}, part {n}: the podcast team gave their first impressions of the new format, the staging,"
            " the crowds, and the scheduling of the doubles.</p>"
            for n in range(paragraphs)
        )
        return f"<div class='body-text'><div class='component'>{text}</div></div>"

    embed = "<div class='html-embed'><iframe src='https://player.example/1'></iframe></div>"
    body = f"<div class='lead'>{chunk('Day one', 4)}</div>{embed}{chunk('Day two', 2)}"
    text = markdown(f"<main><div itemprop='articleBody'>{body}</div></main>", ARTICLE_TYPE)
    assert "Day one, part 3" in text
    assert "Day two, part 1" in text, "the chunk after the embed is the same article"


OTHER_STORIES = "<section class='related-stories'>{}</section>".format(
    "".join(
        f"<div class='card'><h3><a href='/s/{n}'>Story {n}</a></h3><p>Summary {n}: what happened in town today, who"
        " said what about it, and what comes next week for the people who live there.</p></div>"
        for n in range(8)
    )
)
"""Eight cards of other stories, longer together than the story beside them."""


def test_other_stories_are_never_an_articles_content_however_long():
    story = f"<div class='story'>{KETTLE_PROSE}</div>"
    page = f"<main><article>{story}{OTHER_STORIES}</article></main>"
    assert "Summary 3" not in markdown(page, ARTICLE_TYPE)


def test_a_wrapper_named_like_an_ad_or_other_stories_that_holds_the_story_is_the_story():
    footer = "<div class='footer-links'><a href='/imprint'>Imprint</a> <a href='/privacy'>Privacy</a></div>"
    teaser = "<p>Elsewhere: the town's new bakery opens on Monday, with bread baked through the night.</p>"
    for wrapper in ("<div id='skyscraper-height-div'>{}</div>", "<div id='theme-taboola'>{}</div>"):
        story = wrapper.format(f"<h1>Kettle descaling</h1>{KETTLE_PROSE * 4}")
        text = markdown(f"<main>{story}<div class='teaser'>{teaser}</div></main>{footer}", ARTICLE_TYPE)
        assert "boils a litre in three minutes" in text, wrapper
        assert "Imprint" not in text
    rail = f"<div class='recommended'><h2>More stories</h2>{KETTLE_PROSE * 4}</div>"
    text = markdown(f"<main><h1>Kettle descaling</h1>{KETTLE_PROSE}{rail}</main>{footer}", ARTICLE_TYPE)
    assert "More stories" not in text, "other stories longer than the story, without its title, are not it"


def test_a_cookie_prompt_is_never_the_content_however_long_its_vendor_list():
    vendors = "".join(
        f"<div class='vendor'><h4>Partner {n}</h4><p>Partner {n} stores identifiers on your device to measure ads,"
        " build profiles and show personalised content, for up to thirteen months.</p></div>"
        for n in range(12)
    )
    story = f"<div class='post'><h1>Kettle descaling</h1>{KETTLE_PROSE * 3}</div>"
    for name in ("cookie-consent-wrap", "sp-dsgvo-popup"):
        text = markdown(f"{story}<div class='{name}'><div class='modal'>{vendors}</div></div>")
        assert "boils a litre in three minutes" in text, name
        assert "Partner 3" not in text, name
    policy = f"<div class='cookie-policy'><h1>Our cookie policy</h1>{vendors}</div>"
    assert "Partner 3" in markdown(policy), "a page about cookies keeps what it says"


def test_a_copyright_notice_is_never_the_content_however_short_the_page_under_it():
    notice = (
        "<table><tr><td></td><td><div class='copyright-footer'>Copyright © 2007 Ada Kettleworth<p>Distributed"
        " under the Kettle Software License, Version 1.0. (See accompanying file LICENSE_1_0.txt or copy at"
        " <a href='https://kettle.example/LICENSE'>https://kettle.example/LICENSE</a>)</p></div></td></tr></table>"
    )
    constant = (
        "<div class='refentry'><div class='refnamediv'><h2>Global boil_point</h2><p>kettle::boil_point</p></div>"
        "<h2>Synopsis</h2><div class='refsynopsisdiv'><pre class='synopsis'>// In header: &lt;kettle/boil.hpp&gt;"
        "\n\nconst unsigned boil_point;</pre></div></div>"
    )
    text = markdown(f"<table><tr><td><a href='/'>Home</a></td></tr></table><hr>{constant}{notice}<hr>")
    assert "const unsigned boil_point;" in text
    assert "Kettle Software License" not in text
    page = "<div class='copyright-content'><h1>Copyright</h1><p>Every photograph and recipe here is ours.</p></div>"
    assert "Every photograph and recipe here is ours." in markdown(page), "a page about copyright keeps it"


STORY_BODY = "<div class='story-body'>{}</div>".format(
    "".join(
        f"<p>Part {n}: the council weighed the cost of the Sunday hours, the staff they need, and what"
        " the reading club offered to do, before the vote that kept the library open.</p>"
        for n in range(6)
    )
)
WRAPPED_STORY = f"<div class='wrap'><div class='col'>{STORY_BODY}</div></div>"
"""The story as templates wrap it below their header: the lead is looked for beside it."""


def test_the_standfirst_between_the_title_and_the_story_is_its_lead():
    header = (
        "<div class='story-top'><h1>Library stays open on Sundays</h1>"
        "<div class='standfirst'><p>Four thousand residents signed the petition; the council listened, and the"
        " doors stay open from next month.</p></div><div class='metadata'><p>Chat with us in Messenger and find out"
        " what is happening in town as it unfolds, day and night.</p></div></div>"
    )
    text = markdown(f"<main><article>{header}{WRAPPED_STORY}</article></main>", ARTICLE_TYPE)
    assert "Four thousand residents signed the petition" in text
    assert text.index("Four thousand residents") < text.index("Part 0:"), "the lead comes first"
    assert "Chat with us" not in text, "a paragraph in a block named like boilerplate is no lead"
    caption = (
        "<div class='photo'><img src='/l.jpg' alt='The library'></div>"
        "<p>The library on Main Street, as seen from the park on a summer evening.</p>"
    )
    text = markdown(
        f"<main><article><div class='top'><h1>Library stays open</h1>{caption}</div>{WRAPPED_STORY}</article></main>"
    )
    assert "seen from the park" not in text, "after a picture, a paragraph is its caption, not the lead"
    top = f"<div class='top'><h1>Town news</h1><p>{'Everything that happened in town this week, day by day. ' * 2}</p></div>"
    events = "".join(
        f"<div class='event'><h3><a href='/events/{n}'>Event {n}: a market on the square, with stalls of bread,"
        " cheese and honey from the farms around, from eight until noon</a></h3></div>"
        for n in range(6)
    )
    text = markdown(f"<div class='page'>{top}<div class='events'>{events}</div>{WRAPPED_STORY}</div>")
    assert "Everything that happened" not in text, "a title over more than the story is the page's, not the story's"


def test_the_lead_in_the_articles_header_and_a_deck_set_as_a_heading_are_the_lead():
    header = (
        "<header class='article-header'><h1>Library stays open on Sundays</h1><p class='intro'>Four thousand"
        " residents signed the petition; the council listened, and the doors stay open.</p></header>"
    )
    text = markdown(f"<main><article>{header}{WRAPPED_STORY}</article></main>", ARTICLE_TYPE)
    assert "Four thousand residents" in text, "an article's header is where its lead sits, no boilerplate"
    deck = (
        "<div class='article-head'><h1>Library stays open on Sundays</h1><h2 class='subheadline'>Four thousand"
        " residents signed the petition, and the council listened</h2><h2>Sundays</h2></div>"
    )
    text = markdown(f"<main><article>{deck}{WRAPPED_STORY}</article></main>", ARTICLE_TYPE)
    assert "Four thousand residents signed the petition, and" in text, "a deck set as a heading is a lead"
    assert "## Sundays" not in text, "a short heading is no deck"
    unclosed = (
        "<div class='article-head'><h1>Library stays open on Sundays</h1><h2>Four thousand residents signed the"
        f" petition, and the council listened{WRAPPED_STORY}</h2></div>"
    )
    text = markdown(f"<main><article>{unclosed}</article></main>", ARTICLE_TYPE)
    assert text.count("Part 0:") == 1, "a heading left open around the story is no lead: the story comes once"


def test_when_the_h1_sits_in_the_breadcrumbs_the_headline_heads_the_lead():
    crumbs = (
        "<nav class='breadcrumbs'><a href='/'>Home</a> » <a href='/town'>Town</a> » <h1>Library stays open</h1></nav>"
    )
    for headline in (
        "<h2 class='entry-title'>Library stays open on Sundays</h2>",
        "<div itemprop='headline'>Library stays open on Sundays</div>",
    ):
        header = (
            f"<header class='article-header'>{headline}<div class='lead'><p>Four thousand residents signed the"
            " petition; the council listened, and the doors stay open.</p></div></header>"
        )
        text = markdown(f"{crumbs}<main><article>{header}{WRAPPED_STORY}</article></main>", ARTICLE_TYPE)
        assert "Four thousand residents" in text, headline


def test_a_heading_saying_the_pages_title_heads_the_lead_and_a_header_that_held_the_h1_is_no_sign_up_box():
    header = (
        "<div class='container'><header><nav><a href='/'>News</a> <h1>Library stays open on Sundays</h1></nav>"
        "<h2 class='text-5xl'>Library stays open on Sundays</h2><p class='text-xl'>Four thousand residents signed"
        " the petition; the council listened, and the doors stay open.</p><form><input type='email'"
        " placeholder='Your e-mail'> Get the next story</form></header></div>"
    )
    page = f"<html><head><title>Library stays open on Sundays</title></head><body><main>{header}{WRAPPED_STORY}</main></body></html>"
    text = extract(page.encode(), url="https://news.example/library", content_type="text/html").markdown
    assert "Four thousand residents" in text


def test_the_lead_follows_the_title_nearest_the_story_when_the_page_has_several_and_a_dateline_is_no_lead():
    top = (
        "<div class='top'><h1>Library stays open</h1><p>UPDATED: Tue., Nov. 19, 2019</p><p>Four thousand"
        " residents signed the petition; the council listened, and the doors stay open from next month.</p></div>"
    )
    page = f"<div class='brand'><h1><a href='/'>The Town Paper</a></h1></div><main><article>{top}{WRAPPED_STORY}</article></main>"
    text = markdown(page, ARTICLE_TYPE)
    assert "Four thousand residents signed the petition" in text
    assert "UPDATED" not in text


def test_the_lead_runs_past_a_figure_and_the_authors_photo_but_not_the_authors_bio():
    figure = (
        "<figure><img src='/l.jpg' alt='The library'><figcaption><p>The library on Main Street, as seen from"
        " the park on a summer evening.</p></figcaption></figure>"
    )
    lead = (
        "<p>Four thousand residents signed the petition; the council listened, and the doors stay open from"
        " next month.</p>"
    )
    text = markdown(
        f"<main><article><div class='top'><h1>Library stays open</h1>{figure}{lead}</div>{WRAPPED_STORY}</article></main>"
    )
    assert "Four thousand residents signed the petition" in text, "a figure holds its caption: the lead follows it"
    assert "seen from the park" not in text, "the caption is no lead"
    byline = (
        "<div class='author-tooltip'><img src='/ada.jpg' alt=''><p>Ada Byrne covers the town council and its"
        " libraries, and has written for the paper since 2009.</p></div>"
    )
    text = markdown(
        f"<main><article><div class='top'><h1>Library stays open</h1>{byline}{lead}</div>{WRAPPED_STORY}</article></main>"
    )
    assert "Four thousand residents signed the petition" in text, "the author's photo is no picture with a caption"
    assert "Ada Byrne covers" not in text, "the author's bio is no lead"


def test_the_lead_runs_past_one_picture_and_its_caption_and_an_avatar_but_stops_at_a_second_picture():
    lead = (
        "<div class='summary'><p>Four thousand residents signed the petition; the council listened, and the doors"
        " stay open from next month.</p><p>The vote was nine to two, after an evening of speeches.</p></div>"
    )
    hero = "<div class='badge'><img src='/tested.png' alt='Tested'></div><p>Photo: the town archive</p>"
    avatar = "<div class='by'><img src='/ada.jpg' width='50' height='50' alt='Ada Byrne'> By Ada Byrne</div>"
    page = f"<main><article><div class='top'><h1>Library stays open</h1>{hero}{avatar}{lead}</div>{WRAPPED_STORY}</article></main>"
    text = markdown(page)
    assert "Four thousand residents signed the petition" in text, "one picture (with its caption) does not end the lead"
    assert "nine to two" in text
    assert "Photo: the town archive" not in text, "the paragraph right after the picture is its caption"
    cards = "".join(
        f"<div class='card'><img src='/plan{n}.jpg' alt=''><p>Plan {n}: our partner will call you to explain the"
        " services your business could use.</p></div>"
        for n in range(3)
    )
    text = markdown(
        f"<main><article><div class='top'><h1>Start a company</h1>{cards}</div>{WRAPPED_STORY}</article></main>"
    )
    assert "Plan 2: our partner" not in text, "pictures one after another are cards, not a story's lead"


def test_a_heading_linking_to_what_its_section_is_about_stays():
    schools = "".join(
        f"<h2><a href='https://school{n}.example/'>{n}. School {n}</a></h2>"
        f"<p>School {n} is known for its rigorous case method, its small classes and an alumni network that"
        " answers the phone; the program takes two years.</p>"
        for n in range(1, 5)
    )
    text = markdown(f"<main><article><h1>The best schools</h1>{schools}</article></main>", ARTICLE_TYPE)
    for n in range(1, 5):
        assert f"{n}. School {n}" in text, "a section's heading is the article's, wherever it links"


def test_a_heading_whose_id_spells_its_own_text_is_not_named_by_it():
    sections = "".join(
        f"<h2 id='h-how-to-use-social-shopping-part-{n}'>How to use social shopping, part {n}</h2>"
        f"<p>Part {n}: set up the catalog, tag the products in the posts, and check the orders every morning before"
        " the shop opens, so nothing waits.</p>"
        for n in range(4)
    )
    text = markdown(f"<main><article><h1>Social shopping</h1>{sections}</article></main>", ARTICLE_TYPE)
    for n in range(4):
        assert f"How to use social shopping, part {n}" in text


def test_a_heading_whose_id_spells_its_own_text_is_a_section_title_whatever_its_class_says():
    sections = "".join(
        f"<h2 class='anchor anchorTargetStickyNavbar_Vzrq' id='descaling-step-{n}'>Descaling step {n}"
        f"<a href='#descaling-step-{n}' class='hash-link' aria-label='Direct link to Descaling step {n}'>\u200b</a>"
        f"</h2><p>Step {n}: pour the citric acid in, boil, wait an hour and rinse twice before the next tea.</p>"
        for n in range(4)
    )
    menu = "<h2 class='navbar-title' id='site-sections'>Our shop</h2>"
    page = f"<main><div class='theme-doc-markdown markdown'><h1>Descaling</h1>{menu}{sections}</div></main>"
    text = markdown(page)
    for n in range(4):
        assert f"## Descaling step {n}" in text, "Docusaurus styles its headings for the sticky navbar above them"
    assert "Our shop" not in text, "a heading named navbar and anchored elsewhere is the navbar's"


def test_a_headings_permalink_beside_it_and_a_callout_in_an_aside_are_read_as_the_docs_mean_them():
    def section(n: int) -> str:
        return (
            f"<div class='sl-heading-wrapper level-h2'><h2 id='step-{n}'>Step {n}</h2><a class='sl-anchor-link'"
            f" href='#step-{n}'><span aria-hidden='true' class='sl-anchor-icon'><svg></svg></span><span"
            f" class='sr-only'>Section titled “Step {n}”</span></a></div><p>Step {n}: pour the citric acid in, boil,"
            " wait an hour and rinse twice before the next tea.</p>"
        )

    tip = (
        "<aside aria-label='Tip' class='starlight-aside starlight-aside--tip'><p class='starlight-aside__title'>"
        "Tip</p><div class='starlight-aside__content'><p>Never descale a warm kettle: the acid foams.</p></div></aside>"
    )
    rail = "<aside class='newsletter'><p>Sign up for our newsletter and get a discount on descaler.</p></aside>"
    text = markdown(
        f"<main><div class='sl-markdown-content'><h1>Descaling</h1>{tip}{rail}{section(1)}{section(2)}</div></main>"
    )
    assert "## Step 2" in text, "a heading and its anchor link are no link list"
    assert "Section titled" not in text, "the anchor link is the heading's permalink"
    assert "Never descale a warm kettle" in text, "a tip set in an aside is the text's"
    assert "newsletter" not in text


def test_a_blog_indexs_entries_keep_their_titles_and_a_teaser_beside_a_story_does_not():
    def entry(n: int) -> str:
        return (
            f"<article class='entry'><header><h2><a href='/blog/part-{n}'>Descaling notes, part {n}</a></h2>"
            f"<time>October {n}, 2026</time> · <a href='/authors/brook'>Brook</a></header><div class='markdown'>"
            f"<p>Part {n} of our notes on descaling: how often, with what, and why the kettle rumbles less"
            " afterwards, from the first boil to the last rinse.</p></div></article>"
        )

    text = markdown(f"<main><h1>Blog</h1>{''.join(entry(n) for n in range(1, 5))}</main>", ARTICLE_TYPE)
    for n in range(1, 5):
        assert f"Descaling notes, part {n}" in text, "an entry's title heads its excerpt"
        assert f"Part {n} of our notes" in text
    teaser = (
        "<div class='teaser'><div><h3><a href='/other'>Another kettle story</a></h3></div><p>A summary of another"
        " story that the site would like you to read next, with more words than a label has.</p></div>"
    )
    story = f"<main><article><h1>Kettles</h1>{KETTLE_PROSE * 3}{teaser}{KETTLE_PROSE}</article></main>"
    assert "Another kettle story" not in markdown(story, ARTICLE_TYPE), "one teaser beside a story is no entry"


def test_a_page_whose_biggest_block_is_a_table_or_a_carousel_keeps_what_it_says_around_it():
    rows = "".join(
        f"<tr><td>Lecture {n}</td><td>Sep {n}</td><td>Spectral methods, tensor decompositions and the"
        f" method of moments, part {n}</td></tr>"
        for n in range(1, 25)
    )
    page = (
        f"{NAV}<main><h2>Algorithms for data science</h2><div><p>A graduate class on the algorithmic"
        " challenges of modern machine learning.</p><p>Instructor: Ada Byrne, office hours on Thursdays.</p></div>"
        f"<div><h4>Schedule</h4><table>{rows}</table></div></main>"
    )
    text = markdown(page)
    assert "Lecture 24" in text
    assert "A graduate class on the algorithmic challenges" in text
    assert "office hours on Thursdays" in text
    slides = "".join(
        f"<div class='swiper-slide'><p>Research note {n}: a new kernel for attention that runs twice as fast"
        " on the same hardware, with the code and the paper to read and reuse.</p></div>"
        for n in range(12)
    )
    page = (
        f"{NAV}<main><section><h2>The cloud for AI</h2><p>Train, tune and serve open models on one platform.</p>"
        "<p>Two times faster inference, sixty per cent lower cost.</p></section>"
        f"<section><h2>From our research</h2><div class='swiper-wrapper'>{slides}</div></section></main>"
    )
    text = markdown(page)
    assert "Research note 11" in text
    assert "Train, tune and serve open models" in text, "a carousel is one section of its page"
    page = page.replace("<main>", "<div class='sections'>").replace("</main>", "</div>")
    text = markdown(page)
    assert "Train, tune and serve open models" in text, "without a main landmark too: slides are no story"


def test_a_short_story_outweighed_by_a_sidebar_of_links_is_still_the_content():
    categories = "".join(f"<li><a href='/c/{n}'>Category {n}</a></li>" for n in range(40))
    tags = " ".join(f"<a href='/t/{n}'>tag{n}</a>" for n in range(120))
    story = (
        "<div class='col-9'><small class='text-muted'>05/10/2018 - Published by: Clarissa - Category: Health</small>"
        "<div>The home care team of the Amizade district found two of its five cars broken into this morning."
        " The batteries were gone and the cars damaged.<br>A police report was filed, and officers came to see"
        " the damage. Patients booked for this morning are being given new times, and the health department"
        " expects the service to be back to normal this afternoon, as soon as the two cars are replaced by"
        " others from the central fleet. The district clinic stays open all day.</div></div>"
    )
    page = (
        f"<div class='row'><div class='col-3'><h3>Categories</h3><ul>{categories}</ul><p>{tags}</p></div>{story}</div>"
    )
    text = markdown(page)
    assert "found two of its five cars broken into" in text
    assert "back to normal this afternoon" in text
    assert "Category 7" not in text
    assert "tag42" not in text


def test_a_two_sentence_post_under_its_linked_title_author_and_tags_is_the_content():
    archive = "".join(f"<li><a href='/2012/{n}'>Robots of week {n}</a> (3)</li>" for n in range(40))
    about = "<p>Suicide Bots collects robots doing what robots should not. Written since 2009.</p>"
    post = (
        "<div class='post'><h2><a href='/iron-man'>A robot plays Iron Man</a></h2>"
        "<small>August 25th by <a href='/sb'>SB</a></small><div class='entrytext'>"
        "<p>A band of robots is being built to go with the drummer; here it plays a song by Black Sabbath.</p>"
        "<p>The guitarist comes next, and the builders promise a tour.</p></div>"
        "<p>Tags: <a href='/t/music'>music</a>, <a href='/t/drums'>drums</a></p></div>"
    )
    text = markdown(f"<div id='page'>{post}<div id='side'>{about}<ul>{archive}</ul></div></div>")
    assert "A band of robots is being built" in text
    assert "Robots of week 12" not in text, "the post, not the page with its archive"
    assert "Written since 2009" not in text


def test_a_story_set_in_an_aside_holding_the_pages_one_title_is_the_story():
    widgets = "".join(
        f"<aside class='widget'><h3>Scoop {n}</h3><ul>"
        + "".join(f"<li><a href='/s/{n}/{m}'>Star {n}.{m} spotted</a></li>" for m in range(8))
        + "</ul></aside>"
        for n in range(4)
    )
    story = f"<aside class='blogPost'><h1>The kettle that whispers</h1><div class='blogContent'>{KETTLE_PROSE * 3}</div></aside>"
    around = "".join(f"<li><a href='/w/{n}'>Around the web {n}</a> <span>{n} hours ago</span></li>" for n in range(12))
    page = f"<section id='leftColumn'>{story}</section><section id='rightColumn'>{widgets}</section><ul>{around}</ul>"
    text = markdown(page)
    assert "boils a litre in three minutes" in text, "the aside holding the page's title is its story"
    assert "Star 2.3 spotted" not in text, "the sidebar's asides still go"

    titled_widgets = widgets.replace("<h3>", "<h1>").replace("</h3>", "</h1>")
    page = f"<main>{KETTLE_PROSE * 3}</main><aside><h1>Kettle news</h1>{DOC_PROSE * 3}</aside>{titled_widgets}"
    assert "Install the client" not in markdown(page), "a page titling every box h1 titles its sidebar so too"


def entry(title: str, prose: str, heading: str = "h2") -> str:
    """A post marked up as hAtom marks it: the entry, its title, its content."""
    return (
        f"<div class='post hentry'><{heading} class='entry-title'>{title}</{heading}>"
        f"<div class='entry-content'>{prose}</div></div>"
    )


def test_the_entry_a_page_marks_up_as_its_entry_is_the_content_beside_longer_text():
    tweets = "".join(
        f"<li class='hentry'><span class='entry-title author'>@kettles</span><div class='entry-content'>"
        f"Tweet {n}: our team takes on the new steam rules this week at the ministry. #kettles</div></li>"
        for n in range(4)
    )
    related = "".join(f"<li><a href='/r/{n}'>Kettle story {n}</a></li>" for n in range(10))
    scores = "".join(f"<tr><td>Team {n}</td><td>{n} wins, {9 - n} losses, {n * 3} points</td></tr>" for n in range(30))
    story = entry("Quiet kettle wins the award", KETTLE_PROSE * 4, heading="h1")
    page = f"<div role='main'>{story}<h3>Related</h3><ul>{related}</ul></div><table>{scores}</table><ul>{tweets}</ul>"
    text = markdown(page)
    assert "boils a litre in three minutes" in text
    assert "Kettle story 4" not in text, "the entry, not the main landmark around it"
    assert "Tweet 2" not in text

    entries = "".join(entry(f"Post {n}", KETTLE_PROSE) for n in range(5))
    listing = markdown(f"<div role='main'>{entries}<h3>Related</h3><ul>{related}</ul></div><table>{scores}</table>")
    assert all(f"Post {n}" in listing for n in range(5)), "a blog's home page marks every post; none is the page"


def test_the_page_around_its_one_entry_is_not_taken_for_more_of_it_but_its_comments_are():
    blurbs = "".join(
        f"<div class='entry'><span>November {n}</span><h4><a href='/p/{n}'>Kettle tip {n}</a></h4>"
        f"<p>Descaling, steam and the quiet boil: tip {n} of the series says what to do first and why.</p></div>"
        for n in range(6)
    )
    about = f"<div class='about'><h3>About this blog</h3>{DOC_PROSE * 2}</div>"
    post = entry("The kettle that whispers", KETTLE_PROSE * 6)
    page = f"<div class='blog wrap'><div id='content'>{post}</div><div id='sidebar'>{blurbs}{about}</div></div>"
    text = markdown(page)
    assert "boils a litre in three minutes" in text
    assert "Install the client" not in text, "the blog's about box is no part of the post"
    assert "Kettle tip 3" not in text

    comments = "".join(
        f"<li class='comment'><cite>Reader {n}</cite><p>{'Mine boils just as quietly, and keeps warm for an hour. ' * 3}</p></li>"
        for n in range(8)
    )
    thread = f"<div class='comments'><h3>8 comments</h3><ol>{comments}</ol></div>"
    text = markdown(
        f"<div class='blog wrap'><div id='content'>{post}{thread}</div><div id='sidebar'>{about}</div></div>"
    )
    assert "Reader 2" in text, "a page that does not declare an article keeps the entry's comments"


def test_a_short_story_under_its_title_is_the_page_but_a_service_pages_intro_is_not():
    related = "".join(
        f"<li><a href='/r/{n}'>Kettle story {n}</a><span class='date'>Oct {n + 1}, 2012</span>"
        f"<span class='count'>{n * 7} comments so far</span></li>"
        for n in range(60)
    )
    story = f"<div class='post'><h1>The kettle that whispers</h1><div class='text'>{KETTLE_PROSE * 3}</div></div>"
    text = markdown(f"<div id='page'>{story}<div id='more'><h3>More stories</h3><ul>{related}</ul></div></div>")
    assert "boils a litre in three minutes" in text
    assert "Kettle story 12" not in text, "the story, not the lists beside it"

    sections = "".join(f"<section><h2>Service {n}</h2>{DOC_PROSE}</section>" for n in range(3))
    service = f"<div class='hero'><h1>Kettle repair</h1><div class='text'>{KETTLE_PROSE * 3}</div></div>{sections}"
    text = markdown(f"<div id='page'>{service}<div id='more'><h3>More stories</h3><ul>{related}</ul></div></div>")
    assert "Service 2" in text
    assert text.count("Install the client") == 3, "the intro is one section of the page"


def test_a_story_in_a_share_bars_box_beside_a_sponsors_prose_is_still_the_story():
    share_bar = "<div class='share-buttons'><a href='/tw'>Tweet</a> <a href='/fb'>Share</a></div>"
    story = f"<div class='share_wrapper'>{share_bar}<div class='article'>{KETTLE_PROSE * 5}</div></div>"
    sponsor = f"<div class='sponsored'><h3>From our sponsor</h3>{DOC_PROSE * 2}</div>"
    jobs = "".join(f"<li><a href='/jobs/{n}'>Kettle engineer, shift {n}</a></li>" for n in range(40))
    page = f"<div id='leftcol'><h1>Kettle week</h1>{story}</div>{sponsor}<div id='jobs'><ul>{jobs}</ul></div>"
    text = markdown(page, ARTICLE_TYPE)
    assert "boils a litre in three minutes" in text, "the story holds most of what stays, whatever its box"
    assert "Install the client" not in text
    assert "Tweet" not in text, "the share bar inside the story still goes"


def test_the_pages_one_article_holding_its_title_is_where_the_content_is():
    teasers = "".join(f"<li><a href='/issue/{n}'>Issue {n}</a></li>" for n in range(30))
    tab = (
        "<div id='tab-latest-issue' class='panel'><div class='content'><p>Issue 215, the new aesthetic: "
        "art from the outer limits, with an interview, a shoot, an essay, and six new artworks, all "
        "of them made for this issue, by artists we have followed for years, from Paris, Lagos, Seoul.</p></div></div>"
    )
    header = f"<section id='header'><ul>{teasers}</ul>{tab}</section>"
    story = (
        "<article><h1>First look: Sushi</h1><div id='editorial'>"
        "<p>The producer's new album is out on Friday; we stream it here first, a week early.</p>"
        "<p>Progressive as ever, he moves from lo-fi guitars to soaring synths and chopped vocals.</p>"
        "<p>Where his last record looked back to the music of old computer games, this one looks at"
        " the city he moved to, its shops and its screens, and at what he calls his obsessions.</p>"
        "</div></article>"
    )
    text = markdown(f"{header}<section id='content'>{story}</section>")
    assert "we stream it here first" in text
    assert "Issue 215" not in text, "a well-named teaser under the menu is not the page"


def test_a_heading_styled_with_scroll_utilities_is_kept():
    heading = "<h2 id='apply' class='heading g-offset-scroll-margin-top'>Apply the configuration</h2>"
    text = markdown(f"<main><article><h1>Resources</h1>{DOC_PROSE}{heading}{DOC_PROSE}</article></main>")
    assert "## Apply the configuration" in text


def test_a_block_a_third_links_is_a_rail_beside_prose_but_content_elsewhere():
    box = (
        "<div class='box'><a href='/cameras/r100'>Canon EOS R100 Mirrorless Camera</a>"
        "<span>BH # CAER1001845</span> <span>MFR # 6052C012</span> <span>In stock, ships today</span></div>"
    )
    facts = "<ul><li>24.1MP APS-C CMOS sensor</li><li>4K 24p video</li><li>Dual Pixel autofocus</li></ul>"
    text = markdown(f"<main><h1>Cameras compared</h1>{box}{facts}<p>Prices as of May.</p></main>")
    assert "Canon EOS R100 Mirrorless Camera" in text
    assert "MFR # 6052C012" in text
    prose = "".join(
        f"<p>Paragraph {n} of the review says how the camera handled a wet week in the hills.</p>" for n in range(5)
    )
    text = markdown(f"<main><article><h1>A week with the R100</h1>{prose}{box}{prose}</article></main>")
    assert "Paragraph 4 of the review" in text
    assert "Canon EOS R100" not in text, "beside an article's paragraphs, the same block is a rail"


def test_a_short_list_of_facts_is_content_but_a_short_list_of_links_is_not():
    facts = "<ul><li>1.7 l</li><li>Steel</li><li>2 kW</li></ul>"
    share = "<ul><li><a href='https://x.example/share'>Share</a></li><li><a href='/tweet'>Tweet</a></li></ul>"
    text = markdown(f"<main><h1>Quiet Kettle</h1>{KETTLE_PROSE}<p>$60</p>{facts}{share}</main>")
    assert "- 1.7 l\n- Steel\n- 2 kW" in text
    assert "Tweet" not in text


def test_links_drawn_as_buttons_are_controls_not_text():
    page = (
        f"<main><h1>Kettle descaling</h1>{KETTLE_PROSE}<p>See <a href='/guide'>the descaling guide</a>.</p>"
        "<a class='btn btn-primary' href='/latest'>Jump to Latest</a>"
        "<span class='button-text'>Start your free trial</span></main>"
    )
    text = markdown(page)
    assert "[the descaling guide](https://forum.example/guide)" in text
    assert "Jump to Latest" not in text
    assert "Start your free trial" not in text


def test_a_highlighters_column_of_line_numbers_is_not_code():
    chroma = (
        "<table class='lntable'><tr><td class='lntd'><pre><code><span>1\n</span><span>2\n</span><span>3\n</span>"
        "</code></pre></td><td class='lntd'><pre><code class='language-c'>int a;\nint b;\nreturn a + b;</code></pre>"
        "</td></tr></table>"
    )
    pygments = (
        "<table class='highlighttable'><tr><td class='linenos'><div class='linenodiv'><pre>41\n42</pre></div></td>"
        "<td class='code'><div class='highlight'><pre>x = 1\ny = 2</pre></div></td></tr></table>"
    )
    data = "<table><tr><th>n</th><th>square</th></tr><tr><td><pre>1\n2\n3</pre></td><td><pre>1\n4\n9</pre></td></tr></table>"
    text = markdown(f"<main><h1>Kettle descaling</h1>{KETTLE_PROSE}{chroma}{pygments}{data}</main>")
    assert "```c\nint a;\nint b;\nreturn a + b;\n```" in text
    assert "```\nx = 1\ny = 2\n```" in text
    assert "41" not in text
    assert "```\n1\n2\n3\n```" not in text
    assert "| 1 2 3 | 1 4 9 |" in text, "numbers beside numbers are data, not a gutter"


def test_a_number_too_long_to_count_lines_is_no_gutter_and_does_not_fail_the_page():
    """Python refuses to read a number of more than 4,300 digits; a ``pre`` holding one beside
    code (a checksum, a digit of pi per line) is read as it is, not counted as line numbers."""
    digits = "1" * 5000
    row = f"<table><tr><td><pre>{digits}\n{digits}2</pre></td><td><pre>x = 1\ny = 2</pre></td></tr></table>"
    text = markdown(f"<main><h1>Kettle descaling</h1>{KETTLE_PROSE}{row}</main>")
    assert digits in text
    assert "x = 1" in text


def test_who_wrote_edited_or_checked_a_post_is_no_line_of_its_text():
    bylines = (
        "<p>Written by Cassidy Horton</p>",
        "<div><span>Medically reviewed by Jane Doe, MD, PhD</span></div>",
        "<p>Written By Feb 11, 2019 · 3 min read</p>",
        "<p>Geschrieben von Anna Müller am 3. Mai 2024</p>",
    )
    kept = (
        "<p>Written by a nurse for nurses, this guide explains each step.</p>",
        "<p>Our resumes are <strong>edited by our experts to help students stand out.</strong></p>",
    )
    text = markdown(
        f"<main><article><h1>Kettle descaling</h1>{''.join(bylines)}{KETTLE_PROSE}{''.join(kept)}</article></main>"
    )
    for gone in ("Cassidy Horton", "Jane Doe", "Written By", "Anna Müller"):
        assert gone not in text
    assert "Written by a nurse for nurses" in text
    assert "**edited by our experts to help students stand out.**" in text


def test_a_shops_sort_and_filter_labels_and_badges_are_controls_but_the_words_elsewhere_stay():
    badges = (
        "<div class='badge'><span>New</span></div>",
        "<div>Sold out</div>",
        "<p>Best seller</p>",
        "<div>Sale</div>",
    )
    cards = "".join(
        f"<div class='product'>{badges[n % 4]}<a href='/p/{n}'>Carry-on suitcase model {n}</a><span>${n}99.00</span></div>"
        for n in range(1, 9)
    )
    panel = (
        "<div><p>Filter and Sort</p><details open><summary>Sort by</summary><ul><li>Featured</li>"
        "<li>Best selling</li></ul></details><div>Filters:</div><div>Compare</div><p>Your cart is empty</p></div>"
    )
    intro = "<p>Carry-on luggage goes where you go: overhead bins, under seats, down the aisle.</p>"
    text = markdown(f"<main><h1>Carry-on luggage</h1>{intro}{panel}<div>{cards}</div></main>")
    assert "model 8](" in text
    for label in (
        "Filter and Sort",
        "Sort by",
        "Filters",
        "Compare",
        "Your cart",
        "New",
        "Sold out",
        "Best seller",
        "Sale",
    ):
        assert label not in text
    docs = (
        "<h2>Filters</h2><p>Variables can be modified by filters, separated by a pipe; the <strong>filter</strong>"
        " runs on what comes before it.</p><ul><li><code>filter()</code></li><li><code>sort()</code></li></ul>"
        "<h2>New</h2><p>New in version 3: the <em>sale</em> of tickets that sold out is listed apart.</p>"
    )
    text = markdown(f"<main><h1>Template Designer Documentation</h1>{docs}{KETTLE_PROSE}</main>")
    assert "## New" in text
    assert "New in version 3" in text
    assert "## Filters" in text
    assert "the **filter** runs" in text
    assert "- `filter()`" in text


def test_a_link_to_the_rest_of_a_teaser_is_no_text_but_a_link_that_says_something_is():
    def teaser(n: int, more: str) -> str:
        return (
            f"<div class='card'><h3><a href='/news/{n}'>Story {n}: the bridge reopens</a></h3><p>The council voted"
            f" on the {n}th to reopen the bridge to cyclists after the spring repairs.</p>"
            f"<p><a href='/news/{n}'>{more}</a></p></div>"
        )

    labels = ["Read more", "Continue reading →", "Read the full story", "Weiterlesen", "Lire la suite", "Leer más"]
    cards = "".join(teaser(n, label) for n, label in enumerate(labels, 1))
    said = (
        "<p>Locals can <a href='/more'>read more about the repairs</a> on the council's page.</p>"
        "<p><a href='/news'>View all</a></p>"
    )
    text = markdown(f"<main><h1>News</h1>{cards}{said}</main>")
    assert "the 6th to reopen the bridge" in text
    for label in labels:
        assert label not in text
    assert "[read more about the repairs](https://forum.example/more)" in text
    assert "[View all](https://forum.example/news)" in text, "a shop's category leads with it"


def test_what_asks_the_reader_to_sign_in_rate_or_share_is_not_text_but_an_instruction_is():
    prompts = (
        "<h2>Create an account or sign in to comment</h2>",
        "<p>You need to be a member in order to leave a comment</p>",
        "<div class='guest'>You must log in to answer this question.</div>",
        "<p>Sie müssen sich einloggen, um sich an einer Diskussion beteiligen zu können.</p>",
        "<p>Vous devez être connecté pour publier un commentaire.</p>",
        "<span>Sign in to add this item to your wishlist, follow it, or mark it as ignored</span>",
        "<div class='blockStatus'>Not open for further replies.</div>",
        "<dl class='blockStatus'><dt>Status</dt><dd>Not open for further replies.</dd></dl>",
        "<div class='bbCodeBlock-expandLink'><a>Click to expand...</a></div><p><button>x</button>Show more</p>",
        "<p>This topic was automatically closed 30 days after the last reply. New replies are no longer allowed.</p>",
        "<h3>Was this article helpful?</h3><p>War der Artikel nützlich?</p>",
        "<p><strong>Möchten Sie den Artikel teilen?</strong></p><h4>Share this article</h4>",
        "<p class='jetpack-slideshow-noscript robots-nocontent'>This slideshow requires JavaScript.</p>",
        "<p>Dieser Shop setzt voraus, dass Sie JavaScript aktiviert haben. Bitte aktivieren Sie JavaScript.</p>",
    )
    kept = (
        "<p>Log in to your developer console and click Create Application.</p>",
        "<p>Register to join the online events.</p>",
        "<p>The course covers HTML, CSS and JavaScript.</p>",
    )
    text = markdown(f"<main><h1>Kettle descaling</h1>{KETTLE_PROSE}{''.join(prompts)}{''.join(kept)}</main>")
    for gone in (
        "sign in to comment",
        "in order to leave",
        "answer this question",
        "einloggen",
        "connecté",
        "wishlist",
        "further replies",
        "Status",
        "Click to expand",
        "Show more",
        "automatically closed",
        "helpful",
        "nützlich",
        "teilen",
        "Share this",
        "slideshow",
        "Dieser Shop",
    ):
        assert gone not in text
    assert "Log in to your developer console" in text
    assert "HTML, CSS and JavaScript." in text, "a sentence about JavaScript asks nothing"
    assert "Register to join the online events." in text


def test_a_comments_label_closing_the_content_with_no_comments_after_it_is_dropped():
    widget = (
        "<h3>Comments</h3><p><comments-count href='/k'></comments-count> comments</p><div class='fb-comments'></div>"
    )
    text = kettle_article(widget)
    assert text.endswith("after it has boiled.")
    for label in ("Kommentare (0)", "Leave a Reply", "Be the first to comment", "3 commentaires"):
        text = kettle_article(f"<h2>{label}</h2>")
        assert label not in text
    thread = "<h2>2 Comments</h2><p>Ada: citric acid worked for me, two spoons a litre.</p><p>Brook: same here.</p>"
    text = kettle_article(thread)
    assert "2 Comments" in text, "a label with comments after it heads them"
    assert "citric acid worked" in text


def test_the_labels_of_sharing_and_liking_widgets_closing_the_content_are_dropped():
    widgets = (
        "<div class='sharedaddy sd-sharing-enabled'><h3 class='sd-title'>Share this:</h3><ul><li><a href='/s'"
        " class='share-facebook'><span>Facebook</span></a></li></ul></div><div class='jetpack-likes-widget-wrapper'>"
        "<h3 class='sd-title'>Like this:</h3><div class='likes-widget-placeholder'></div></div>"
    )
    text = kettle_article(widgets)
    assert text.endswith("after it has boiled.")
    for label in ("Tags:", "Pin it for later!", "Enjoy the post? Pin it for later!", "Diesen Beitrag teilen"):
        text = kettle_article(f"<p>{label}</p>")
        assert label not in text
    text = markdown(f"<article><h1>Kettle descaling</h1><p>Share this:</p>{KETTLE_PROSE}</article>")
    assert "Share this:" in text, "a label with the story after it is not closing anything"


def test_loading_placeholders_are_not_text_but_a_sentence_about_loading_is():
    page = (
        f"<main><h1>Kettle descaling</h1>{KETTLE_PROSE}<div class='reviews'><div>Loading...</div></div>"
        "<span>Loading…</span><div>LOADING</div><span class='loading'>Wird geladen</span><p>Cargando...</p>"
        "<p>Loading the kettle past the line makes it spit when it boils.</p></main>"
    )
    text = markdown(page)
    assert "Loading..." not in text
    assert "Loading…" not in text
    assert "LOADING" not in text
    assert "Wird geladen" not in text, "pages say it in their language"
    assert "Cargando" not in text
    assert "Loading the kettle past the line" in text


LOREM = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore."


def test_a_templates_filler_text_is_not_text_but_a_sentence_about_it_is():
    slides = "".join(
        f"<div class='slide'><h3>Heading line {n}</h3><p class='body-text'>{LOREM}</p></div>" for n in range(4)
    )
    page = (
        f"<main><h1>Kettle descaling</h1>{KETTLE_PROSE}<div class='cards'>{slides}<h3>Lorem Ipsum</h3></div>"
        "<p>Lorem ipsum is the Latin a designer sets where the copy will go, as in this kettle's first brochure.</p>"
        "</main>"
    )
    text = markdown(page)
    assert "boils a litre" in text
    assert "consectetur" not in text, "filler the template left in its unused slides"
    assert "Lorem Ipsum\n" not in text
    assert "Lorem ipsum is the Latin a designer sets" in text, "a sentence about filler is text"


def test_a_template_never_filled_in_keeps_its_filler_it_is_all_the_page_says():
    text = markdown(f"<main><h1>Coming soon</h1><p>{LOREM} {LOREM}</p><p>{LOREM}</p></main>")
    assert "consectetur" in text


def test_a_pictures_credit_typed_as_a_line_of_the_story_goes_but_its_source_stays():
    page = (
        f"<main><article><h1>Kettle descaling</h1>{KETTLE_PROSE}<p><em>Titelbild: Getty Images / Anna Berg</em></p>"
        "<p>Crédits photos : Bestimage</p><p>Photo by Ada Lovelace on Unsplash</p><p>Source: the kettle makers'"
        " association, 2024 survey</p><p>Photographs of kettles fill the museum's second floor, from 1890 to"
        " today, and visitors may touch the oldest of them.</p></article></main>"
    )
    text = markdown(page, ARTICLE_TYPE)
    assert "boils a litre" in text
    assert "Getty" not in text, "a credit is who took the picture, not what the story says"
    assert "Bestimage" not in text
    assert "Unsplash" not in text
    assert "Source: the kettle makers' association" in text, "a source is the text's citation"
    assert "Photographs of kettles fill the museum" in text, "a sentence that opens with the word is text"


def test_a_page_whose_main_content_comes_out_empty_is_read_again_rather_than_lost():
    page = f"{NAV}<main><aside class='panel'><article><h1>Kettle descaling</h1>{KETTLE_PROSE}</article></aside></main>"
    text = markdown(page, ARTICLE_TYPE)
    assert "boils a litre" in text, "the story in a block dressed as furniture is not lost"
    assert "Shop" not in text, "read again with its furniture, the page's content is still chosen"
    assert markdown("<main><aside><nav><a href='/'>Home</a></nav></aside></main>") == "[Home](https://forum.example/)"


STRIP = "<div class='strip'><p>Deliver to 67346</p><p>Sale ends Sunday: 20 % off with a coupon code</p></div>"
PLANS = "".join(
    f"<section><h2>Plan {n}</h2><ul><li>Plan {n} covers the kettle for {n + 1} years</li>"
    f"<li>Plan {n} replaces the lid for free</li></ul></section>"
    for n in range(12)
)


def test_the_content_starts_at_its_title_but_keeps_what_stands_beside_it():
    heading = "<div class='heading'><p>Kitchen · Kettles</p><h1>The Quiet Kettle</h1></div>"
    text = markdown(f"<main>{STRIP}<div class='page'>{heading}{PLANS}</div></main>")
    assert "Deliver to" not in text
    assert "Sale ends" not in text
    assert "Kitchen · Kettles" in text, "a kicker beside the title is part of it"
    assert "## Plan 11" in text


def test_without_one_title_nothing_above_a_heading_goes():
    parts = "".join(f"<section><h1>Part {n}</h1>{PLANS}</section>" for n in (1, 2))
    text = markdown(f"<main>{STRIP}<div class='paper'>{parts}</div></main>")
    assert "Sale ends Sunday" in text, "a page heading each part with an h1 has no one title"


def test_a_noscript_asking_for_javascript_is_not_text_but_a_noscript_thread_is():
    page = (
        f"<main><h1>Kettle descaling</h1>{KETTLE_PROSE}"
        "<noscript><p>You must enable JavaScript to shop on this site.</p></noscript>"
        "<noscript><p>Reply 1: two spoons of citric acid a litre, an hour, and it was quiet again.</p></noscript>"
        "</main>"
    )
    text = markdown(page)
    assert "enable JavaScript" not in text
    assert "two spoons of citric acid" in text


def kept_after_boilerplate(body: str) -> str:
    root = parse.parse_html(f"<html><body>{body}</body></html>").find("body")
    boilerplate.remove_boilerplate(root)
    return " ".join("".join(root.itertext()).split())


def test_the_pages_own_header_is_its_banner_but_an_articles_header_is_content():
    products = "".join(
        f"<li><a href='/p{n}'><div>Product {n}</div><div>Storage and compute for team {n}, managed for you.</div></a></li>"
        for n in range(40)
    )
    story = (
        "<article><header><h1>Kettle descaling</h1><p>Two spoons of citric acid, one hour.</p></header>"
        f"{KETTLE_PROSE}</article><section><header><h2>Reader tips</h2></header>{KETTLE_PROSE}</section>"
    )
    text = kept_after_boilerplate(f"<div class='top'><header><ul>{products}</ul></header></div>{story}")
    assert "Product 3" not in text, "a header outside article, aside, main, nav and section is the page's banner"
    assert "Two spoons of citric acid" in text
    assert "Reader tips" in text


def test_furniture_holding_the_main_landmark_wraps_the_page_and_is_kept():
    for opening in ("<header role='banner'>", "<div role='navigation'>", "<aside>"):
        page = f"{opening}{NAV}<main><h1>Kettle descaling</h1>{KETTLE_PROSE * 3}</main>"
        text = kept_after_boilerplate(page)
        assert "boils a litre in three minutes" in text, opening
        assert "Shop" not in text, "the furniture inside the wrapper still goes"


def test_a_page_wrapped_whole_in_its_header_keeps_it():
    text = kept_after_boilerplate(f"<header><h1>Kettle descaling</h1>{KETTLE_PROSE * 3}</header><p>Imprint</p>")
    assert "boils a litre in three minutes" in text


def reply(number: int) -> str:
    return (
        f"<li class='item'><div class='meta'><a href='/u/{number}'>user{number}</a></div>"
        f"<div class='Message userContent'>Reply {number}: I soaked mine overnight in a litre of water with two"
        f" spoons of citric acid, rinsed it {number} times, and boiled it empty once before the first cup; the"
        " scale came off in flakes and the element has stayed clean for a month since, with no taste left in"
        " the water and no rumble when it boils, which is all I wanted from it.</div></li>"
    )


def test_a_thread_whose_posts_sit_in_different_wrappers_is_read_whole():
    first = (
        "<div class='Discussion'><h1>Descaling the Quiet Kettle</h1><div class='Item-Body'><div class='Message userContent'><p>"
        "The kettle has started to rumble and the water tastes of chalk after a year of hard water, and the"
        " manual says nothing about descaling; what has worked for you, and how often do you do it now? "
        "I have tried vinegar once, which left a smell for a week, and a tablet from the shop, which did"
        " little; the element is white with scale, the filter at the spout is clogged, and the lid no longer"
        " closes the way it did. Before I buy a new one, I would like to know whether citric acid, lemon or"
        " something else is worth a try, how long to leave it, and whether boiling it with the acid inside is"
        " safe for the seals and the plastic of the base.</p></div></div></div>"
    )
    replies = "<ul class='Replies'>" + "".join(reply(n) for n in range(1, 4)) + "</ul>"
    text = markdown(f"{NAV}<div class='Frame'><div class='Content'>{first}{replies}</div></div>")
    assert "started to rumble" in text
    assert "Reply 3:" in text, "every post of the family, however each is wrapped"


def record(author: str, day: int, body: str) -> str:
    return (
        f"<div class='post bg{day % 2}'><div class='postprofile'><a href='/u/{author}'>{author}</a></div>"
        f"<div class='postbody'><div class='author'>Posted Jan {day}, 2024</div>"
        f"<div class='content'>{body}</div></div></div>"
    )


def test_the_short_replies_of_a_thread_are_kept_with_its_first_post():
    question = (
        "My kettle has started to rumble and the water tastes of chalk after a year of hard water. The manual"
        " says nothing about descaling, the element is white with scale, the filter at the spout is clogged,"
        " and the lid no longer closes the way it did. I have tried vinegar once, which left a smell for a"
        " week, and a tablet from the shop, which did little. Is citric acid worth a try, how long should I"
        " leave it, and is boiling it with the acid inside safe for the seals and the plastic of the base?"
    )
    answers = [
        "Citric acid, two spoons a litre, an hour. Rinse twice.",
        "Same here, and boil it empty once after, or the first cup tastes sour.",
        "Vinegar works too but the smell stays for days; acid is better.",
        "Mine was clean after one go, the rumble went with the scale.",
    ]
    posts = record("ada", 1, question) + "".join(record(f"user{n}", n + 2, text) for n, text in enumerate(answers))
    text = markdown(f"{NAV}<div class='page'><h1>Descaling the Quiet Kettle</h1><div class='topic'>{posts}</div></div>")
    assert "tastes of chalk" in text
    positions = [text.index(answer) for answer in answers]
    assert positions == sorted(positions), "every reply, short as it is, in reading order"
    assert "Posted Jan 5, 2024" not in text, "the date beside each post's body is the forum's, as its name is"
    assert "user3" not in text
    assert "Home" not in text


def test_a_page_builders_sections_alike_are_not_a_thread():
    story = f"<div class='section s1'><div class='text'><h1>Descaling</h1>{KETTLE_PROSE * 6}</div></div>"
    others = "".join(
        f"<div class='section s{n}'><p>Follow us on channel {n} for a kettle tip every morning</p></div>"
        for n in range(2, 5)
    )
    text = markdown(f"<div class='builder'>{story}{others}</div>")
    assert "boils a litre in three minutes" in text
    assert "Follow us" not in text, "sections alike that add little to the article are the page around it"


def test_a_family_of_cards_is_not_one():
    cards = "".join(
        f"<div class='card'><a href='/k{n}'>The Quiet Kettle, model {n}, in brushed steel</a></div>" for n in range(6)
    )
    story = f"<div class='story'><h1>Descaling</h1>{KETTLE_PROSE * 3}</div>"
    text = markdown(f"<div class='page'>{story}<div class='rail'>{cards}</div></div>")
    assert "boils a litre in three minutes" in text
    assert "model 4" not in text


def test_a_page_that_calls_every_page_an_article_is_still_read_by_its_sections():
    services = "".join(
        f"<section class='band band-{n}'><div class='inner'><h2>Service {n}</h2><ul><li>Plan {n} covers ants</li>"
        f"<li>Plan {n} covers mice</li></ul></div></section>"
        for n in range(10)
    )
    intro = (
        "<section class='hero'><div class='copy'><p>Pest control for homes and businesses, in every season, by"
        " licensed technicians, with a free inspection first.</p></div></section>"
    )
    text = markdown(f"<main>{intro}{services}</main>", ARTICLE_TYPE)
    assert "Pest control for homes" in text
    assert "## Service 7" in text, "og:type article on a service page does not make it one block of prose"


def test_a_menu_of_links_nested_in_links_goes_from_a_page_read_by_its_sections():
    services = "".join(
        f"<section><h2>Service {n}</h2><ul><li>Plan {n} covers ants</li><li>Plan {n} covers mice</li></ul></section>"
        for n in range(10)
    )
    menu = "<ul class='picker'>" + "".join(
        f"<li><a href='/services/{n}'>Service area {n}</a><ul><li><a href='/services/{n}/a'>Audits {n}</a></li>"
        f"<li><a href='/services/{n}/b'>Reviews {n}</a></li></ul></li>"
        for n in range(6)
    )
    sources = "<ul>" + "".join(
        f"<li><a href='/guide/{n}'>Guide {n}</a><ul><li>Read before the first visit, {n} pages</li></ul></li>"
        for n in range(3)
    )
    text = markdown(f"<main>{menu}</ul>{services}{sources}</ul></main>")
    assert "## Service 7" in text
    assert "Service area 3" not in text, "a site's sections and their pages are its menu"
    assert "Audits 4" not in text
    assert "Read before the first visit, 2 pages" in text, "nested lists that say something are the text's"


def test_a_chapter_that_is_its_table_of_contents_keeps_it_and_a_story_does_not():
    sections = "".join(
        f"<dt><span class='sect1'><a href='indexes-{n}.html'>11.{n}. Index kind number {n}</a></span></dt>"
        for n in range(1, 13)
    )
    chapter = (
        "<div class='chapter'><h2>Chapter 11. Indexes</h2><div class='toc'><p><strong>Table of Contents</strong></p>"
        f"<dl class='toc'>{sections}</dl></div><p>Indexes are a common way to enhance database performance. An"
        " index lets the server find and retrieve rows much faster than it could without one, but indexes add"
        " overhead to the database system as a whole, so they should be used sensibly.</p></div>"
    )
    versions = (
        "<div class='row'><p>Supported versions: "
        + " / ".join(f"<a href='/docs/{n}/'>{n}</a>" for n in range(10, 19))
        + "</p><p>Unsupported versions: "
        + " / ".join(f"<a href='/docs/{n}.0/'>{n}.0</a>" for n in range(1, 10))
        + "</p></div>"
    )
    text = markdown(f"<div id='docContent'>{versions}{chapter}</div>", ARTICLE_TYPE)
    assert "11.12. Index kind number 12" in text, "the chapter says what it holds, and little else"
    assert "a common way to enhance database performance" in text
    story = chapter.replace("used sensibly.", f"used sensibly. {KETTLE_PROSE * 3}")
    text = markdown(f"<div id='docContent'>{versions}{story}</div>", ARTICLE_TYPE)
    assert "Index kind number 12" not in text, "beside a story, a list of links is a rail"


def test_the_declared_body_is_the_content_however_much_else_the_page_says():
    story = f"<div itemprop='articleBody'>{KETTLE_PROSE * 2}</div>"
    readers = "<ul>" + "".join(f"<li>Letter {n}: mine hums, hisses and clicks off.</li>" for n in range(40)) + "</ul>"
    page = f"<main><article><h1>Kettles</h1>{story}</article><section class='letters'><h2>Letters</h2>{readers}</section></main>"
    text = markdown(page, ARTICLE_TYPE)
    assert "boils a litre" in text
    assert "Letter 5" not in text


def test_a_class_word_on_every_block_is_what_the_page_is_built_of_not_boilerplate():
    def widget(inner: str) -> str:
        return f"<div class='elementor-widget'><div class='elementor-widget-container'>{inner}</div></div>"

    blocks = [
        widget(
            f"<h2>App {n}</h2><p>Score {n} of 10.</p><ul><li>Price: {n} dollars a month</li><li>Levels: A1 to B{n}</li></ul>"
        )
        for n in range(6)
    ]
    blocks.insert(3, widget(DOC_PROSE))
    text = markdown(f"<main><article><h1>Language apps</h1>{''.join(blocks)}</article></main>", ARTICLE_TYPE)
    assert "## App 4" in text
    assert "- Levels: A1 to B4" in text
    aside = "<div class='widget'><h3>Archives</h3><ul><li>May</li><li>June</li></ul></div>"
    assert "Archives" not in markdown(f"<main><article>{DOC_PROSE * 3}{aside}</article></main>", ARTICLE_TYPE)


def test_nothing_inside_code_is_taken_for_boilerplate_by_its_class():
    code = "<pre><code><span class='hljs-comment'># stage every file</span>\ngit add -A</code></pre>"
    text = markdown(f"<main><article><h1>Git</h1>{DOC_PROSE}{code}{DOC_PROSE}</article></main>")
    assert "# stage every file\ngit add -A" in text


def test_the_box_around_an_email_field_is_a_sign_up_prompt_not_text():
    newsletter = (
        "<div class='flex col'><p>Subscribe to Kettle Weekly</p><p>Get more descaling tips</p>"
        "<form><input type='email' placeholder='Your address'><button>Submit</button></form>"
        "<p>By subscribing to this newsletter, you agree to our terms.</p></div>"
    )
    mailchimp = "<aside2><p>Deals in your inbox</p><input type='text' name='EMAIL'></aside2>"
    text = markdown(f"<main><h1>Kettle descaling</h1>{KETTLE_PROSE}{newsletter}{KETTLE_PROSE}{mailchimp}</main>")
    assert "boils a litre in three minutes" in text
    assert "Subscribe to Kettle Weekly" not in text
    assert "By subscribing" not in text
    assert "Deals in your inbox" not in text


def test_a_short_post_above_its_comment_form_is_kept_and_the_form_goes():
    comment_form = (
        "<div class='respond'><h3>Leave a reply</h3><form id='commentform' action='/wp-comments-post.php'>"
        "<label>Email</label><input name='email'><textarea name='comment'></textarea></form></div>"
    )
    post = f"<div class='content'><h2>Kettle of the week</h2>{KETTLE_PROSE}{comment_form}</div>"
    archive = "".join(f"<li><a href='/{n}'>Kettles and teapots of week {n}</a></li>" for n in range(30))
    text = markdown(f"<div class='wrap'>{post}<div class='links'><ul>{archive}</ul></div></div>", ARTICLE_TYPE)
    assert "boils a litre in three minutes" in text, "a reply form's box is the form, not the post it answers"
    assert "Leave a reply" not in text


def test_the_prompt_around_a_contact_form_goes_with_it():
    contact = (
        "<div class='cta'><h3>Let us help</h3><p>Fill out this quick form and we call you within a day.</p>"
        "<form class='elementor-form'><input type='email'><textarea name='message'></textarea></form></div>"
    )
    text = markdown(f"<main><h1>Kettle repairs</h1>{KETTLE_PROSE}{KETTLE_PROSE}{contact}</main>")
    assert "boils a litre in three minutes" in text
    assert "Fill out this quick form" not in text


def test_the_block_of_the_title_stays_however_it_asks_for_an_email():
    hero = (
        "<div class='hero'><h1>Kettle care for teams</h1><p>Use your work e-mail to start.</p>"
        "<input type='email'></div>"
    )
    text = markdown(f"<main>{hero}{KETTLE_PROSE}{KETTLE_PROSE}</main>")
    assert "Use your work e-mail to start" in text, "a box holding the page's title is not a prompt"
    assert "boils a litre in three minutes" in text


def test_a_short_page_that_is_its_form_is_kept():
    text = markdown("<div><p>Write to the kettle workshop: we answer within a day.</p><input type='email'></div>")
    assert "Write to the kettle workshop" in text


def test_a_block_heading_a_section_under_a_layout_word_is_kept_but_a_menu_there_is_not():
    sections = "".join(
        f"<section><div class='StyledHeadlineHeader-sc-{n}'><h2>Kettle story {n}</h2><p>How team {n} boils"
        f" water</p></div><div class='cards'><p>Card {n}: quiet</p></div></section>"
        for n in range(3)
    )
    menu = "<div class='site-header'><h3>Shop</h3><a href='/a'>Kettles and lids</a><a href='/b'>Spare parts</a></div>"
    text = kept_after_boilerplate(f"{menu}{sections}")
    assert "Kettle story 2" in text
    assert "How team 1 boils water" in text
    assert "Spare parts" not in text


@pytest.mark.parametrize("subject", ["category-social-media", "tag-cookie-recipes", "category-share-tips"])
def test_a_wordpress_posts_categories_and_tags_are_its_subjects_not_its_role(subject):
    post = f"<div id='post-9749' class='post-9749 post type-post hentry {subject}'>{KETTLE_PROSE * 3}</div>"
    archive = "".join(f"<li><a href='/{n}'>Kettles and teapots of week {n}</a></li>" for n in range(30))
    about = f"<div class='about-box'><h3>About the shop</h3>{DOC_PROSE * 2}<ul>{archive}</ul></div>"
    text = markdown(f"<div class='wrap'><h1>Kettle week</h1>{post}{about}</div>", ARTICLE_TYPE)
    assert "boils a litre in three minutes" in text


def test_categories_and_tags_outside_a_wordpress_post_keep_their_words():
    menu = "<div class='category-menu'><a href='/a'>Kettles</a> <a href='/b'>Teapots</a></div>"
    text = markdown(f"<div class='wrap'><h1>Kettle week</h1>{menu}{KETTLE_PROSE * 3}</div>")
    assert "boils a litre in three minutes" in text
    assert "Teapots" not in text


def test_hashes_and_uuids_in_class_names_are_not_words():
    blocks = "".join(
        f"<section class='elementor-element elementor-element-a0ad13a'><h2>Step {n}</h2>{KETTLE_PROSE}</section>"
        f"<div id='block-ddd261f2-56d7-4daf-ad66-f086977fc07{n}'><p>Tip {n}: rinse twice after descaling.</p></div>"
        for n in range(3)
    )
    ad = "<div class='ad300x250'><p>Buy the Loud Kettle today, now at half price for a short while only.</p></div>"
    text = kept_after_boilerplate(f"{blocks}{ad}")
    assert "Step 2" in text, "a0ad13a is a hash, not the word ad"
    assert "Tip 1: rinse twice" in text, "a UUID says nothing"
    assert "Loud Kettle" not in text, "ad300x250 is an ad"


def test_lines_pointing_to_other_stories_are_dropped_but_a_sentence_about_related_work_is_not():
    story = (
        f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}"
        "<p>Related: <a href='/loud'>The loudest kettles of the year, ranked</a></p>"
        "<p><strong>SEE MORE:</strong> <a href='/lids'>Lids that never rattle</a></p>"
        "<p>Related: descaling also helps the kettle's thermostat, which reads the water more truly.</p>"
        f"{KETTLE_PROSE}</article>"
    )
    text = markdown(story)
    assert "loudest kettles" not in text
    assert "never rattle" not in text
    assert "thermostat, which reads" in text


RAIL = (
    "<p>You may also like...</p><p><a href='/loud'>The loudest kettles of the year</a></p>"
    "<p><a href='/lids'>Lids that never rattle</a></p>"
)


def test_a_rail_of_other_stories_inside_an_article_is_dropped_up_to_the_next_paragraph():
    text = markdown(
        f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}{RAIL}{KETTLE_PROSE}<p>Rinse twice.</p></article>"
    )
    assert "You may also like" not in text
    assert "loudest kettles" not in text
    assert "never rattle" not in text
    assert "Rinse twice." in text


def test_a_rail_of_teaser_cards_is_dropped_however_little_of_them_links():
    cards = "".join(
        f"<div class='card'><a href='/story/{n}'><img src='/{n}.jpg' alt=''></a><h3>Other story {n}</h3>"
        f"<p>The first line of another story, long enough that its link covers little of the card {n}.</p></div>"
        for n in range(3)
    )
    rail = f"<h2>Mehr zum Thema</h2><div class='grid'>{cards}</div>"
    text = kettle_article(rail)
    assert "The Quiet Kettle boils" in text
    assert "Mehr zum Thema" not in text
    assert "Other story" not in text
    assert "another story" not in text
    plain = cards.replace("<a href", "<span data-href").replace("</a>", "</span>")
    text = markdown(
        f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}<h2>Mehr zum Thema</h2><div>{plain}</div></article>"
    )
    assert "Other story 1" in text, "blocks that link nowhere are no teasers"
    wrapped = f"<div class='widget'><div class='widget-container'><div class='grid'>{cards}</div></div></div>"
    text = markdown(
        f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}<div class='widget'><h2>Latest news</h2></div>{wrapped}"
        "</article>"
    )
    assert "Latest news" not in text
    assert "another story" not in text, "a page builder's wrappers around the grid are looked through"


def test_a_list_of_links_the_text_announces_with_a_colon_is_the_texts_but_not_one_pointing_elsewhere():
    picks = "".join(f"<li><a href='https://shop.example/p/{n}'>Long nose pliers, model {n}</a></li>" for n in range(3))
    others = "".join(f"<li><a href='/posts/{n}'>Another post of mine, number {n}</a></li>" for n in range(3))
    text = markdown(
        f"<article><h1>Electrician tools</h1>{KETTLE_PROSE * 2}<p>Top expert recommendations:</p><ul>{picks}</ul>"
        f"{KETTLE_PROSE * 2}<p>If you liked this post you might also like:</p><ul>{others}</ul></article>",
        ARTICLE_TYPE,
    )
    assert "Long nose pliers, model 2" in text
    assert "Another post of mine" not in text
    assert "you might also like" not in text, "the line announcing a dropped rail goes with it"
    headed = picks.replace("<li><a", "<li><h3><a").replace("</a></li>", "</a></h3></li>")
    text = markdown(
        f"<article><h1>Electrician tools</h1>{KETTLE_PROSE * 2}<p>Top expert recommendations:</p><ul>{headed}</ul>"
        f"{KETTLE_PROSE * 2}</article>",
        ARTICLE_TYPE,
    )
    assert "Long nose pliers, model 2" in text, "a heading that is a kept list's item is the item, wherever it links"


def test_lists_of_links_each_under_a_heading_of_its_own_are_a_syllabus_but_one_under_related_is_a_rail():
    def section(number: int, heading: str) -> str:
        pages = "".join(
            f"<li><a href='/tutorials/{number}-{n}'>Tutorial {number}.{n} on kettles</a></li>" for n in range(4)
        )
        return f"<h3>{heading}</h3><ul>{pages}</ul>"

    intro = (
        "<h1>Kettle school</h1><p>"
        + "Every lesson of the course, in the order we teach them, with notes. " * 4
        + "</p>"
    )
    syllabus = "".join(section(n, f"{n}. Part {n} of the course") for n in range(1, 4))
    text = markdown(f"{NAV}<main>{intro}<div>{syllabus}</div></main>")
    assert "Tutorial 1.0 on kettles" in text
    assert "Tutorial 3.3 on kettles" in text
    assert "Part 2 of the course" in text
    rails = section(1, "Related posts") + section(2, "Part 2 of the course") + section(3, "Read more")
    text = markdown(f"{NAV}<main>{intro}<div>{rails}</div></main>")
    assert "Tutorial 1.0 on kettles" not in text, "two sections beside a rail are not three"
    linked = syllabus.replace("<h3>", "<h3><a href='/part'>").replace("</h3>", "</a></h3>")
    assert "Tutorial 2.1 on kettles" not in markdown(f"{NAV}<main>{intro}<div>{linked}</div></main>")


def test_a_manuals_parts_each_said_and_listed_are_its_contents_but_a_footers_columns_are_not():
    def part(name: str, sentence: str) -> str:
        chapters = "".join(
            f"<li class='toctree-l1'><a href='{name}/{n}.html'>{name.title()} chapter {n}</a><ul>"
            f"<li class='toctree-l2'><a href='{name}/{n}.html#first'>{name.title()} {n}, first step</a></li>"
            f"<li class='toctree-l2'><a href='{name}/{n}.html#last'>{name.title()} {n}, last step</a></li></ul></li>"
            for n in range(1, 4)
        )
        return (
            f"<section id='{name}'><h2>The {name.title()} Guide<a class='headerlink' href='#{name}'>¶</a></h2>"
            f"{sentence}<div class='toctree-wrapper compound'><ul>{chapters}</ul></div></section>"
        )

    intro = f"<section id='top'><h1>Kettlecraft</h1>{KETTLE_PROSE * 5}"
    said = "".join(
        part(name, f"<p>This part of the documentation walks through {name}, one task at a time.</p>")
        for name in ("user", "community", "developer")
    )
    text = markdown(f"{NAV}<main><div class='body' role='main'>{intro}{said}</section></div></main>")
    assert "The Community Guide" in text
    assert "walks through developer" in text
    assert "Developer chapter 3" in text
    assert "User 2, last step" in text, "each part's list keeps its nested sections"
    labelled = "".join(part(name, "") for name in ("user", "community", "developer"))
    text = markdown(f"{NAV}<main><div class='body' role='main'>{intro}{labelled}</section></div></main>")
    assert "Developer chapter 3" not in text, "columns of links under their labels are a footer's, a menu's"
    assert "User 2, last step" not in text


def test_a_short_answer_that_links_once_is_written_though_its_heading_has_a_permalink():
    answer = (
        "<section id='py3'><h2>Python 3 Support?<a class='headerlink' href='#py3'>¶</a></h2>"
        "<p>Yes! The kettle library supports all <a href='https://python.example/versions/'>officially supported"
        " versions of Python</a> and recent releases of PyPy.</p></section>"
    )
    text = markdown(f"{NAV}<main><article><h1>Kettle FAQ</h1>{KETTLE_PROSE * 3}{answer}</article></main>")
    assert "and recent releases of PyPy" in text
    rail = answer.replace("<p>Yes! The kettle library supports all ", "<p><a href='/more'>More</a> ")
    assert "PyPy" not in markdown(f"{NAV}<main><article><h1>Kettle FAQ</h1>{KETTLE_PROSE * 3}{rail}</article></main>")


def test_a_heading_that_links_to_itself_is_a_heading_not_a_link():
    def section(anchor: str, title: str, body: str = "") -> str:
        return (
            f"<section class='content-section'><h2 id='{anchor}'><a class='heading-anchor' href='#{anchor}'>"
            f"{title}</a></h2>{body}</section>"
        )

    page = (
        f"{NAV}<main><article><h1>Kettle API</h1>{section('usage', 'Usage', KETTLE_PROSE * 3)}"
        f"{section('browser_compatibility', 'Browser compatibility')}"
        f"{section('see_also', 'See more', KETTLE_PROSE)}{section('elsewhere', 'Kettle news')}"
        f"{section('care', 'Care', KETTLE_PROSE)}</article></main>"
    )
    text = markdown(page)
    assert "Browser compatibility" in text, "its link only points at itself"
    linked_away = page.replace("href='#elsewhere'", "href='/news'")
    assert "Kettle news" not in markdown(linked_away), "a heading that links to another page is a teaser"


def test_a_technical_documents_see_also_is_its_own_but_beside_a_story_it_is_a_rail():
    see_also = (
        "<section><h2 id='see_also'><a href='#see_also'>See also</a></h2><ul>"
        "<li><a href='/docs/async'>async function</a></li><li><a href='/docs/await'>await</a></li>"
        "<li><a href='https://promisesaplus.example/'>Promises/A+ specification</a></li></ul></section>"
    )
    guide = (
        "<h1>Using promises</h1>"
        + "<p>A promise is an object representing the eventual completion or failure of an asynchronous"
        " operation, and <code>then()</code> returns a new promise, different from the original.</p>"
        * 3
        + "<pre><code>doSomething().then((result) => doSomethingElse(result));</code></pre>"
    )
    text = markdown(f"{NAV}<main><article>{guide}{see_also}</article></main>", ARTICLE_TYPE)
    assert "Promises/A+ specification" in text, "a reference's cross-references are the author's"
    assert "async function" in text
    wiki = see_also.replace("<section>", "<div>").replace("</section>", "</div>")
    wiki = wiki.replace("<h2 id='see_also'>", "<div class='mw-heading'><h2 id='see_also'>").replace(
        "</h2>", "</h2> edit</div>"
    )
    text = markdown(f"{NAV}<main><article>{guide}{wiki}</article></main>", ARTICLE_TYPE)
    assert "Promises/A+ specification" in text, "a heading in a wrapper of its own heads the section all the same"
    story = "<h1>Library stays open</h1>" + "<p>The council listened, and the doors stay open on Sundays.</p>" * 6
    text = markdown(f"{NAV}<main><article>{story}{see_also}</article></main>", ARTICLE_TYPE)
    assert "Promises/A+ specification" not in text, "beside a story, 'See also' heads a rail of other pages"


def test_rails_and_teaser_lines_are_recognised_in_the_languages_of_the_web():
    links = (
        "<p><a href='/loud'>The loudest kettles of the year</a></p><p><a href='/lids'>Lids that never rattle</a></p>"
    )
    for label in (
        "Das könnte Sie auch interessieren",
        "Vous aimerez aussi",
        "Dernières actualités",
        "Te puede interesar",
        "Últimas noticias",
        "Laatste nieuws",
        "Czytaj też",
        "Schon gelesen?",
        "Mehr Themen:",
    ):
        text = markdown(
            f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}<h3>{label}</h3>{links}{KETTLE_PROSE}</article>"
        )
        assert label not in text
        assert "loudest kettles" not in text, label
        assert text.count("boils a litre") == 2
    for line in (
        "Lesen Sie auch:",
        "À lire aussi :",
        "À lire aussi »",
        "Leggi anche:",
        "Lea también:",
        "Auch lesen:",
        "VEA TAMBIÉN:",
        "Le puede interesar:",
    ):
        text = markdown(
            f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}<p>{line} <a href='/l'>Lids that never rattle</a></p></article>"
        )
        assert "never rattle" not in text, line


def test_the_links_to_the_previous_and_next_posts_are_not_the_story():
    navigation = "".join(
        f"<li class='rkv-entry__series__{side}'><a href='/blog/{slug}/'><div class='rkv__entry__series__content'>"
        f"<h2 class='p'><span></span>{label}</h2><p>{title}</p></div></a></li>"
        for side, slug, label, title in [
            ("prev", "season", "Previous Post", "Don’t Miss the Descaling Season: 8 Last-Minute Kettle Cleaning…"),
            ("next", "lids", "Nächster Beitrag", "Free Lids and Kettles: What You Need to Know"),
        ]
    )
    navigation = (
        "<div class='entry__meta'><div class='rkv-entry__series-wrapper'>"
        f"<ul class='rkv-entry__series rkv-series__list'>{navigation}</ul></div></div>"
    )
    text = markdown(
        f"<article><h1>Kettle descaling</h1><div class='entry-content'>{KETTLE_PROSE}{navigation}</div></article>"
    )
    assert text.endswith("after it has boiled.")
    assert "Descaling Season" not in text
    assert "Free Lids" not in text
    sentence = "<p>Next post in this series: how to keep the lid quiet, with nothing but a rubber ring.</p>"
    text = kettle_article(sentence)
    assert "Next post in this series" in text, "a sentence saying what comes next is text"


def test_a_rail_that_promises_other_posts_you_will_love_is_dropped():
    links = "<ul><li><a href='/loud'>The loudest kettles of the year</a></li><li><a href='/lids'>Lids</a></li></ul>"
    for label in ("Other posts you’ll love:", "You may also enjoy", "You may be interested in the following topics"):
        text = kettle_article(f"<h4>{label}</h4>{links}")
        assert label not in text
        assert "loudest kettles" not in text, label


def test_the_label_of_a_rail_its_script_never_filled_is_dropped():
    for label in ("Related posts", "Ähnliche Beiträge"):
        empty = f"<div class='rail'><h3>{label}</h3><div class='slots'></div></div>"
        text = markdown(
            f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}{KETTLE_PROSE}{empty}</article>", ARTICLE_TYPE
        )
        assert label not in text
        assert "boils a litre" in text
    heading = (
        "<h2>Related work</h2><p>Descaling also helps the kettle's thermostat, which reads the water more truly.</p>"
    )
    assert "Related work" in kettle_article(heading)


def test_a_section_of_the_newest_pages_on_a_listing_is_what_the_page_lists_but_a_rail_of_others_is_not():
    items = "".join(f"<li><a href='/k{n}'>Kettle {n}, quiet and quick</a></li>" for n in range(8))
    for label in ("Latest news", "Trending", "Meistgelesen"):
        text = markdown(f"<main><h1>Kettles</h1><ul>{items}</ul>{RAIL.replace('You may also like...', label)}</main>")
        assert "loudest kettles" in text, label
    cards = "".join(
        f"<div class='card'><a href='/p/{n}'><img src='/{n}.jpg' alt=''></a><h3>Kettle lid {n}</h3><p>$1{n}</p></div>"
        for n in range(3)
    )
    product = f"<main><h1>Quiet Kettle</h1>{KETTLE_PROSE}<p>$60</p><ul><li>1.7 litres, brushed steel</li><li>Cordless base</li></ul>"
    for label in ("You may also like", "Customers also bought", "Frequently bought together", "Ils vont bien ensemble"):
        text = markdown(f"{product}<h2>{label}</h2><div class='grid'>{cards}</div></main>")
        assert "Kettle lid" not in text, label
        assert label not in text
        assert "1.7 litres" in text
    assert "loudest kettles" not in markdown(f"<main><h1>Kettles</h1><ul>{items}</ul>{RAIL}</main>")
    thread = "".join(post(n, author) for n, author in enumerate(["ada", "brook", "cyd"], 1))
    others = "".join(
        f"<div class='structItem'><a href='/t/{n}'>Kettle thread {n}</a> <span>12 replies</span></div>"
        for n in range(4)
    )
    for label in ("Similar threads", "More topics from this board", "Related questions"):
        text = markdown(f"<main><h1>Kettle descaling</h1>{thread}<h3>{label}</h3><div>{others}</div></main>")
        assert "Kettle thread" not in text, label
        assert "Reply 3:" in text


def test_a_caption_or_credit_beside_a_picture_in_an_article_is_dropped_and_the_picture_stays():
    photo = (
        "<div class='photo'><p><img src='/k.jpg' alt='A quiet kettle'></p>"
        "<span class='newsCaption'>The kettle at work <span class='caption'>(Image: GETTY)</span></span></div>"
        "<figure><img src='/l.jpg' alt='A lid'><div class='credit'>(Image credit: Kettle Co)</div></figure>"
    )
    text = markdown(f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}{photo}{KETTLE_PROSE}</article>", ARTICLE_TYPE)
    assert "GETTY" not in text
    assert "Kettle Co" not in text
    assert "![A quiet kettle]" in text


def test_a_shop_calling_its_copy_a_caption_keeps_it():
    tiles = "".join(
        f"<div class='tile'><img src='/k{n}.jpg' alt='Kettle'><h3>{feature}</h3><p class='caption'>{copy}</p></div>"
        for n, (feature, copy) in enumerate(
            [
                ("Fast", "Boils in three minutes."),
                ("Quiet", "Half the noise of an ordinary kettle."),
                ("Warm", "Keeps the water hot for an hour."),
                ("Safe", "Switches itself off when dry."),
            ]
        )
    )
    text = markdown(f"<main><h1>The Quiet Kettle</h1><div class='tiles'>{tiles}</div><p>From $49.</p></main>")
    assert "Boils in three minutes." in text
    assert "Switches itself off when dry." in text


def test_a_caption_beside_a_picture_in_content_that_is_mostly_paragraphs_is_dropped_whatever_the_page_declares():
    photo = "<div class='photo'><img src='/k.jpg' alt='Kettle'><p class='caption'>Photo: Ada Byrne</p></div>"
    text = markdown(f"<main><h1>The Quiet Kettle</h1>{KETTLE_PROSE * 3}{photo}{KETTLE_PROSE * 3}</main>")
    assert "The Quiet Kettle boils" in text
    assert "Ada Byrne" not in text


def test_an_articles_byline_and_timestamp_lines_are_metadata_not_text():
    story = (
        "<article><h1>Kettle descaling</h1><p class='content__meta content__meta-byline'>By Ada Lovelace</p>"
        "<p class='content__meta-timestamp'>November 20, 2019 / 1:07 AM</p>"
        f"{KETTLE_PROSE}{KETTLE_PROSE}</article>"
    )
    page = f"<html><head>{ARTICLE_TYPE}</head><body>{story}</body></html>".encode()
    document = extract(page, url="https://news.example/kettles", content_type="text/html")
    assert "Ada Lovelace" not in document.markdown
    assert "1:07 AM" not in document.markdown
    assert "boils a litre" in document.markdown


def test_an_articles_author_box_is_metadata_but_a_listing_of_authors_is_not():
    bio = (
        "<div class='author-box'><img src='/ada.jpg' alt='Ada'><div class='author-description'><p>Ada writes about"
        " kitchens and the machines in them. You can keep up with her on Twitter.</p></div></div>"
    )
    text = markdown(f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}{KETTLE_PROSE}{bio}</article>", ARTICLE_TYPE)
    assert "keep up with her" not in text
    assert "boils a litre" in text
    authors = "".join(
        f"<div class='author-card'><h3>Writer {n}</h3><p>Writer {n} has covered kitchens, tea and the machines"
        " that make it for ten years, and tests every kettle at home.</p></div>"
        for n in range(4)
    )
    assert "Writer 2 has covered" in markdown(f"<main><h1>Our writers</h1>{authors}</main>")


def test_an_articles_metadata_line_is_not_text_however_its_class_runs_the_words_together():
    for name in ("postmetadata", "img-metadata"):
        line = f"<div class='{name}'><p>Filed on Tuesday 6 May 2014 under <a href='/c/news'>News</a>, by Ada</p></div>"
        text = markdown(f"<article><h1>Kettle descaling</h1>{KETTLE_PROSE}{line}{KETTLE_PROSE}</article>", ARTICLE_TYPE)
        assert "Filed on Tuesday" not in text, name
        assert text.count("boils a litre") == 2


def test_a_copyright_line_inside_the_content_is_not_text():
    notice = "<div class='copyright-notice'><p>© 2020 Kettle Co. All rights reserved; reproduced only with permission.</p></div>"
    text = markdown(f"<main><h1>Kettle descaling</h1>{KETTLE_PROSE * 3}{notice}</main>")
    assert "All rights reserved" not in text
    assert "boils a litre" in text


def test_a_post_beside_its_authors_avatar_and_a_reaction_emoji_is_no_gallery():
    def message(n: int) -> str:
        return (
            f"<div class='message'><div class='message-inner'><img class='avatar avatar-u{n}' src='/a{n}.png' alt='user{n}'>"
            f"<div class='body'>Reply {n}: citric acid, two spoons a litre, left for an hour; the kettle has been"
            " quiet since, and the scale came off in flakes. Vinegar works too, but the smell stays in the kitchen"
            " for a day, and the next two pots of tea taste of it; rinse three times whichever you use.</div>"
            "<img class='reaction-image reaction-image--emoji' src='/like.png' alt='Like'></div></div>"
        )

    thread = "".join(message(n) for n in range(1, 5))
    text = markdown(f"<main><h1>Kettle descaling</h1><div class='thread'>{thread}</div></main>", ARTICLE_TYPE)
    assert all(f"Reply {n}:" in text for n in range(1, 5))


def test_a_block_beside_its_svg_toggles_is_no_gallery():
    toggle = "<div class='toggle'><img src='/static/switch.svg'></div><div class='toggle'><img src='/static/switch.svg?v=2'></div>"
    pros = (
        f"<section class='drawers'><h3>Pros and cons</h3>{toggle}<h4>Pros</h4><ul><li>Careful handling</li>"
        "<li>Quick moving process</li></ul><h4>Cons</h4><ul><li>Delayed arrival or delivery</li></ul></section>"
    )
    text = markdown(f"<article><h1>Movers</h1>{KETTLE_PROSE * 2}{pros}{KETTLE_PROSE * 2}</article>", ARTICLE_TYPE)
    assert "Delayed arrival or delivery" in text
    photos = "".join(f"<img src='/photos/{n}.jpg' alt=''>" for n in range(3))
    text = markdown(
        f"<article><h1>Movers</h1>{KETTLE_PROSE * 2}<div class='strip'>{photos}<p>Moving day.</p></div>"
        f"{KETTLE_PROSE * 2}</article>",
        ARTICLE_TYPE,
    )
    assert "Moving day." not in text, "photographs with a line under them are a gallery"


def test_a_roundups_cards_each_picture_under_its_own_heading_are_no_gallery():
    recipes = ["Citrus kettle rinse", "Overnight lemon soak", "Vinegar steam clean"]
    cards = "".join(
        f"<div class='card'><img src='/photos/{n}.jpg' alt=''><h3>{name}</h3>"
        f"<span>A quick way to a quiet kettle, number {n}.</span><a href='/recipes/{n}'>Get the recipe</a></div>"
        for n, name in enumerate(recipes)
    )
    roundup = f"<article><h1>Descaling recipes</h1>{KETTLE_PROSE * 2}<div class='list'>{cards}</div></article>"
    text = markdown(roundup, ARTICLE_TYPE)
    assert all(name in text for name in recipes), "each picture with a name of its own is a card"
    assert "A quick way to a quiet kettle, number 2." in text
    unnamed = roundup.replace("<h3>", "<b>").replace("</h3>", "</b>")
    assert "Overnight lemon soak" not in markdown(unnamed, ARTICLE_TYPE), "pictures with a line each are a gallery"


def test_a_headed_section_with_a_written_paragraph_beside_its_pictures_is_no_gallery():
    frames = "".join(f"<img src='/animation/frame-{n}.png' alt=''>" for n in range(5))
    section = (
        "<section class='feature'><h2>Designed to be redesigned</h2><p>Get fast and easy access to the features"
        " you use most in the new menu. Open the Customize panel to add, move or remove any button you want, and"
        " keep your favourite features, add-ons, private browsing and sync, one quick click away. Whatever you"
        f" change, the reset button puts every piece back where it first was.</p>{frames}</section>"
    )
    page = (
        f"<main><article><h1>Make it your own</h1>{KETTLE_PROSE * 4}<div class='rows'>{section}</div></article></main>"
    )
    text = markdown(page, ARTICLE_TYPE)
    assert "Get fast and easy access" in text, "a section's written paragraph among its pictures is the text"
    photos = "".join(f"<img src='/photos/{n}.jpg' alt=''><span>Photo {n}: the kettle at dawn.</span>" for n in range(5))
    gallery = f"<div class='photos'><h2>In pictures</h2><p>A morning with the kettle.</p>{photos}</div>"
    text = markdown(page.replace(section, gallery), ARTICLE_TYPE)
    assert "the kettle at dawn" not in text, "pictures with their captions under a heading are still a gallery"


def test_a_candidate_that_reaches_past_main_is_narrowed_to_it():
    useful = "".join(f"<li><a href='/{name.lower()}'>{name}</a></li>" for name in ("Quickstart", "API", "History"))
    talks = "".join(
        f"<li><p><a href='https://talks.example/{n}'>{title}</a></p></li>"
        for n, title in enumerate(["A review of the kettle", "Boiling water, a talk", "Descaling, a blog post"])
    )
    page = (
        "<div class='container'><p>Kettle is an elegant and simple library for boiling water, built for people.</p>"
        f"<h3>Useful Links</h3><ul>{useful}</ul><main><div id='content'><section><h1>Integrations</h1></section>"
        f"<section><h2>Articles and talks</h2><ul class='simple'>{talks}</ul></section></div></main></div>"
    )
    text = markdown(page)
    assert "Boiling water, a talk" in text
    assert "elegant and simple" not in text, "the page's main says where its content is"
    assert "Quickstart" not in text


def test_a_service_pages_slides_that_say_more_than_a_caption_each_are_no_gallery():
    slides = (
        "<div class='carousel'><div class='slide'><img src='/slides/odds.jpg' alt=''><div>Gameday at home</div>"
        "<div>Live odds in one zone. Full coverage in another. Four games at once.</div></div>"
        "<div class='slide'><img src='/slides/voice.jpg' alt=''><div>Your voice finds it</div>"
        "<div>Say a title and it plays.</div></div></div>"
    )
    features = "".join(
        f"<div class='feature'><h2>{name}</h2><div>{name} comes with every rental: delivered, set up and collected"
        " again at the end of the month, with a spare filter and a descaling kit in the box.</div></div>"
        for name in ("Delivery", "Set-up", "Collection", "Filters")
    )
    page = f"<main><h1>Kettle rental</h1>{features}{slides}{features}</main>"
    assert "Full coverage in another." in markdown(page), "slides written in sentences say what is offered"
    captions = (
        "<div class='carousel'><div class='slide'><img src='/photos/1.jpg' alt=''><div>The kettle at dawn.</div></div>"
        "<div class='slide'><img src='/photos/2.jpg' alt=''><div>The kettle at dusk.</div></div></div>"
    )
    assert "The kettle at dusk." not in markdown(page.replace(slides, captions)), "a caption a picture: a gallery"


def test_around_each_posts_body_the_name_date_and_buttons_go_and_a_post_without_one_keeps_its_name():
    profiles = ["/members/ada.12/", "/u/brook", "/memberlist.php?mode=viewprofile&u=7", "/profile/31-cyd/"]
    thread = "".join(
        f"<article class='message'><div class='message-user'><h4 class='message-name'><a href='{profile}'>poster{n}</a>"
        f"</h4></div><div class='message-main'><header class='message-attribution'><time>May {n + 1}, 2024</time>"
        f"<a href='#post-{n}'>#{n + 1}</a></header><div class='message-body'>"
        f"<p>Reply {n}: descaling with citric acid, two spoons a litre, left for an hour, worked for me, and the"
        " kettle has been quiet since.</p></div><footer class='message-actions'><a href='#'>Like</a>"
        "<a href='#'>Reply</a></footer></div></article>"
        for n, profile in enumerate(profiles)
    )
    text = markdown(f"<main><h1>Kettle descaling</h1>{thread}</main>")
    for n in range(4):
        assert f"Reply {n}:" in text
        assert f"poster{n}" not in text, "the name beside a post's body is the forum's heading of it"
        assert f"May {n + 1}, 2024" not in text
    assert "Like" not in text
    written_in = "".join(
        f"<div class='comment'><a href='{profile}'>poster{n}</a> wrote on May {n + 1}, 2024:"
        f"<p>Reply {n}: descaling with citric acid, two spoons a litre, left for an hour, worked for me.</p>"
        f"<p>The kettle has been quiet since, and the tea tastes of tea again.</p></div>"
        for n, profile in enumerate(profiles)
    )
    text = markdown(f"<main><h1>Kettle descaling</h1>{written_in}</main>")
    for n in range(4):
        assert f"poster{n}" in text, "a post written straight into its record keeps who wrote it"
    story = (
        f"<article><h1>Kettle descaling</h1><div class='byline'><a href='/authors/ada'>Ada Byrne</a></div>"
        f"{KETTLE_PROSE * 4}</article>"
    )
    assert "Ada Byrne" not in markdown(story, ARTICLE_TYPE), "an article's byline is its metadata"


def test_the_rank_a_forum_gives_each_poster_is_not_the_thread():
    ranks = ["New Head-Fier", "Junior Guru Wannabe", "Gold Member", "500+ Head-Fier"]
    thread = "".join(
        f"<article class='message'><div class='message-user'><h4>poster{n}</h4><h5 class='userTitle message-userTitle'>"
        f"{rank}</h5></div><div class='message-body'><p>Reply {n}: descaling with citric acid, two spoons a litre,"
        " left for an hour, worked for me, and the kettle has been quiet since.</p></div></article>"
        for n, rank in enumerate(ranks)
    )
    text = markdown(f"<main><h1>Kettle descaling</h1>{thread}</main>")
    assert "Reply 3:" in text
    assert "poster3" in text
    for rank in ranks:
        assert rank not in text
    reference = "".join(
        f"<dt>WebSocket.field{n} <span class='badge'>Read only</span></dt><dd>What the socket says about"
        f" itself, number {n}, once it is open and until it closes again.</dd>"
        for n in range(4)
    )
    text = markdown(f"<main><h1>WebSocket</h1><h2>Instance properties</h2><dl>{reference}</dl></main>")
    assert "WebSocket.field3 Read only" in text, "a reference's badge is no poster's rank"


def test_the_figures_a_forum_keeps_beside_each_posters_name_are_not_the_thread():
    thread = "".join(
        f"<div class='post'><div class='postbody'><p>Reply {n}: descaling with citric acid, two spoons a litre,"
        " left for an hour, worked for me, and the kettle has been quiet since.</p></div>"
        f"<dl class='postprofile'><dt><a href='./memberlist.php?mode=viewprofile&amp;u={n}'>poster{n}</a></dt>"
        f"<dd><strong>Posts:</strong> {137 * n + 1}</dd><dd><strong>Joined:</strong> {n + 1}. Jul 2012, 16:09</dd>"
        "</dl></div>"
        for n in range(4)
    )
    text = markdown(f"<main><h1>Kettle descaling</h1>{thread}</main>")
    assert "Reply 3:" in text
    assert "poster3" in text, "the poster's name is part of the post"
    assert "Posts:" not in text
    assert "Joined:" not in text
    franchises = "".join(
        f"<div class='card'><h3>Kettle Club {n}</h3><p>Founded: {2000 + n}</p><p>Locations: {40 + n}</p>"
        f"<p>Kettle Club {n} teaches descaling in {40 + n} towns, with citric acid and patience.</p></div>"
        for n in range(4)
    )
    text = markdown(f"<main><h1>The best kettle franchises</h1>{franchises}</main>")
    assert "Founded: 2003" in text, "the same line away from a poster's name is the content's data"


def test_a_posters_signature_under_each_post_is_not_the_thread():
    thread = "".join(
        post(n, author).replace(
            "<div class='message-actions'>",
            f"<div class='message-signature'><p>{author}'s rig: three kettles, one for each tea, all descaled.</p></div>"
            "<div class='message-actions'>",
        )
        for n, author in enumerate(["ada", "brook", "cyd"], 1)
    )
    text = markdown(f"<main><h1>Kettle descaling</h1>{thread}</main>")
    assert "Reply 3:" in text
    assert "rig: three kettles" not in text


def test_the_signature_of_a_type_or_a_member_is_its_declaration():
    page = (
        "<main><h1>Class Kettle</h1><div class='type-signature'><span class='modifiers'>public class </span>"
        "<span class='element-name'>Kettle</span><span class='extends-implements'> extends "
        "<a href='/Appliance.html'>Appliance</a></span></div>"
        f"{DOC_PROSE}<section class='detail'><h3>boil</h3><div class='member-signature'><span class='modifiers'>"
        "public</span> <span class='return-type'>void</span> <span class='element-name'>boil</span>"
        "(<a href='/Water.html'>Water</a> water)</div><div class='block'>Boils the water it is given, once.</div>"
        "</section><div class='attr function'><span class='name'>pour</span><span class='signature pdoc-code'>"
        "(<span class='param'>cup: Cup, </span><span class='param'>temperature: int = 80</span>)</span></div>"
        "<div class='docstring'>Pours one cup.</div></main>"
    )
    text = markdown(page)
    assert "public class Kettle extends [Appliance]" in text
    assert "public void boil([Water](https://forum.example/Water.html) water)" in text
    assert "pour(cup: Cup, temperature: int = 80)" in text


def test_typedocs_comments_and_signatures_are_the_reference_not_readers_replies():
    def member(name: str, signature: str, comment: str) -> str:
        return (
            f"<section class='tsd-panel tsd-member'><h3>{name}</h3><ul class='tsd-signatures'>"
            f"<li class='tsd-signature'><span class='tsd-kind-call-signature'>{name}</span>"
            f"<span class='tsd-signature-symbol'>(</span>{signature}<span class='tsd-signature-symbol'>)</span>"
            "<span class='tsd-signature-symbol'>: </span><span class='tsd-signature-type'>number</span></li>"
            f"<li class='tsd-description'><div class='tsd-comment tsd-typography'><p>{comment}</p></div></li>"
            "</ul></section>"
        )

    page = (
        f"{NAV}<main><div class='tsd-page-title'><h1>Class Kettle</h1></div><section class='tsd-panel tsd-comment'>"
        "<div class='tsd-comment tsd-typography'><p>A kettle to descale: its volume in litres and the hardness"
        " of the water it boils.</p></div></section>"
        + member("dose", "acid", "The grams of acid this kettle needs, rounded up to the next whole gram.")
        + member("boil", "litres", "Boils the water and says how long it took, in seconds.")
        + "</main>"
    )
    text = markdown(page)
    assert "A kettle to descale" in text, "the class's description under its title"
    assert "rounded up to the next whole gram" in text, "a member's description under its signature"
    assert "dose(acid): number" in text, "a signature holding parts named for code is a declaration"
    interface = (
        "<div class='tsd-signature'><span class='tsd-signature-keyword'>interface </span><span"
        " class='tsd-kind-interface'>BoilOptions</span> <span class='tsd-signature-symbol'>{ </span><br>"
        "<a class='tsd-kind-property' href='#volumeInLitresOfWater'>volumeInLitresOfWater</a><span class='tsd-signature-symbol'>: </span>"
        "<span class='tsd-signature-type'>number</span><br><a class='tsd-kind-property' href='#acidUsedToDescale'>acidUsedToDescale</a>"
        "<span class='tsd-signature-symbol'>: </span><span class='tsd-signature-type'>string</span>"
        "<span class='tsd-signature-symbol'>}</span></div>"
    )
    text = markdown(page.replace("</section>", f"</section>{interface}", 1))
    assert "interface BoilOptions {" in text, "a declaration's links are its members, not a list of pages"
    assert "acidUsedToDescale: string" in text
    replies = "".join(
        f"<div class='comment'><p>Reply {n}: I tried the snippet above and it worked on my kettle too.</p></div>"
        for n in range(2)
    )
    attributed = (
        "<div class='comment'><span class='comment-author'>ada</span><p>Thanks, the code above saved my"
        " morning tea and my kettle.</p></div>"
    )
    story = f"<h1>Descaling from a script</h1>{DOC_PROSE * 3}<pre><code>descale --volume 1.7</code></pre>"
    text = markdown(f"<main><article>{story}{attributed}{replies}</article></main>", ARTICLE_TYPE)
    assert "saved my morning tea" not in text, "a comment that names its author is a reader's"
    assert "Reply 1:" not in text
    add = "<div class='comments'><a href='#'>Add a comment</a></div>"
    assert "Add a comment" not in markdown(f"<main><article>{story}{add}</article></main>", ARTICLE_TYPE)


def test_a_note_whose_links_name_code_in_its_sentences_is_kept():
    note = (
        "<div class='docblock'><p>Stops the boil in a <a href='iface.Kettle.html'><code>KettleInterface</code></a>."
        "</p><p>See also: <a href='method.Kettle.set_boil_point.html'><code>kettle_set_boil_point()</code></a></p>"
        "</div>"
    )
    menu = "<div class='links'><p><a href='/a'>Kettles</a> | <a href='/b'>Teapots</a></p></div>"
    terms = (
        "<div class='notice'><p>By posting, you agree to our <a href='/terms'>terms of service</a>, "
        "<a href='/privacy'>privacy policy</a> and <a href='/cookies'>cookie policy</a></p></div>"
    )
    text = markdown(f"<main><h1>Constant KETTLE_STOP</h1>{DOC_PROSE}<h4>Description</h4>{note}{menu}{terms}</main>")
    assert "Stops the boil in a [`KettleInterface`]" in text
    assert "Teapots" not in text, "links between bars are a menu, not a sentence"
    assert "privacy policy" not in text, "a sentence of links to other pages is still a list of them"


def reader_comment(number: int) -> str:
    return (
        f"<li class='comment'><cite>reader{number}</cite><p>Comment {number}: mine took two descales before the"
        " noise went, and now it is the quietest thing in the kitchen, quieter than the fridge.</p></li>"
    )


COMMENTS = "<section class='comments'><ol class='comment-list'>" + "".join(map(reader_comment, range(1, 13)))
COMMENTS += "</ol></section>"
STORY_WITH_COMMENTS = f"<main><article><h1>Kettle descaling</h1>{KETTLE_PROSE * 3}</article>{COMMENTS}</main>"


def test_the_comments_under_an_article_are_not_the_article_however_long():
    text = markdown(STORY_WITH_COMMENTS, ARTICLE_TYPE)
    assert "boils a litre" in text
    assert "Comment 4" not in text
    assert "Comment 4" in markdown(STORY_WITH_COMMENTS), "on a page that is no article, they may be what it is"


def test_a_story_that_is_only_its_discussion_keeps_it():
    page = (
        f"<main><h1><a href='https://blog.example/kettles'>Kettle descaling</a></h1><p>12 comments</p>{COMMENTS}</main>"
    )
    assert "Comment 4" in markdown(page, ARTICLE_TYPE)


def json_ld(value: object) -> str:
    return f"<script type='application/ld+json'>{json.dumps(value)}</script>"


def test_a_thread_that_declares_itself_a_discussion_keeps_its_replies_whatever_og_type_says():
    for declared in ("DiscussionForumPosting", "QAPage"):
        head = ARTICLE_TYPE + json_ld({"@context": "https://schema.org", "@type": declared, "name": "Kettles"})
        assert "Comment 4" in markdown(STORY_WITH_COMMENTS, head), declared


def test_json_ld_and_microdata_declare_an_article_as_og_type_does():
    story = f"<div class='story'>{KETTLE_PROSE}</div>"
    assert "Summary 3" in markdown(f"<main><article>{story}{OTHER_STORIES}</article></main>"), (
        "undeclared, it may be content"
    )
    graph = {"@graph": [{"@type": "WebSite"}, {"@type": ["NewsArticle"], "author": {"@type": "Person"}}]}
    page = {"@type": "WebPage", "mainEntity": {"@type": "https://schema.org/BlogPosting"}}
    for head in (
        json_ld({"@type": "Article"}),
        json_ld([graph]),
        json_ld(page),
        "<script type='application/ld+json'>{</script>" + json_ld({"@type": "TechArticle"}),
    ):
        assert "Summary 3" not in markdown(f"<main><article>{story}{OTHER_STORIES}</article></main>", head), head
    microdata = (
        f"<main><article itemscope itemtype='https://schema.org/BlogPosting'>{story}{OTHER_STORIES}</article></main>"
    )
    assert "Summary 3" not in markdown(microdata)
    listing = "<main><div itemscope itemtype='https://schema.org/ItemList'><article itemscope"
    listing += f" itemtype='https://schema.org/BlogPosting'>{story}{OTHER_STORIES}</article></div></main>"
    assert "Summary 3" in markdown(listing), "a list that holds posts is no post: only the outermost item counts"


DECLARED_BODY = (
    "The council voted on Tuesday to keep the library open on Sundays, after a petition signed by four"
    " thousand residents asked for it.\nThe extra hours cost less than a tenth of the branch's budget, the"
    " treasurer said, and volunteers from the reading club will staff the front desk in the afternoons.\n"
    "The first Sunday opening is planned for the start of next month, with a story hour for children and"
    " a repair café in the basement for anyone bringing a broken lamp or toaster.\nThe reading club"
    " will choose the first month's books, starting with a history of the town's old paper mill."
)


def test_the_declared_article_body_stands_in_for_a_page_its_html_does_not_show():
    shell = f"<header>{NAV}</header><main><div id='root'><p>Loading…</p></div></main><footer>Imprint</footer>"
    item = {"@type": "NewsArticle", "headline": "Library open on Sundays", "articleBody": DECLARED_BODY}
    text = markdown(shell, json_ld(item))
    assert "after a petition signed by four thousand residents" in text
    assert "a repair café in the basement" in text
    assert text.count("\n\n") >= 2, "one paragraph per line of the declared body"
    marked_up = {**item, "articleBody": "".join(f"<p>{line}</p>" for line in DECLARED_BODY.split("\n"))}
    text = markdown(shell, json_ld({"@graph": [{"@type": "WebSite"}, marked_up]}))
    assert "staff the front desk" in text
    assert "<p>" not in text, "a body that holds markup is read as HTML"


def test_a_page_that_shows_its_article_is_read_from_its_html_whatever_it_declares():
    shown = "".join(f"<p>{line} <a href='/source'>Source</a></p>" for line in DECLARED_BODY.split("\n"))
    summary = {"@type": "NewsArticle", "articleBody": "The library stays open on Sundays."}
    full = {"@type": "NewsArticle", "articleBody": DECLARED_BODY}
    for item in (summary, full):
        text = markdown(f"<main><article>{shown}</article></main>", json_ld(item))
        assert "[Source](https://forum.example/source)" in text, "the HTML is what is read"
        assert text.count("a repair café") == 1


def quoting_post(number: int, author: str, body: str, quote: str = "") -> str:
    quoted = f"<blockquote><div class='quote-title'>{quote[:12]} said:</div>{quote}</blockquote>" if quote else ""
    return (
        f"<article class='message'><div class='message-user'><h4><a href='/members/{author}.{number}/'>{author}</a>"
        f"</h4><div class='message-userExtras'><dl><dt>Joined</dt><dd>Mar {number}, 2019</dd></dl>"
        f"<dl><dt>Location</dt><dd>Town {number}</dd></dl></div></div><div class='message-body'>"
        f"<time>May {number}, 2024</time>{quoted}<p>{body}</p></div></article>"
    )


QUESTION = (
    "Which descaler works best on a stainless kettle that has gone white inside after a year of hard water,"
    " without leaving a taste in the tea afterwards?"
)


def test_a_reply_quoting_an_earlier_post_keeps_its_own_words_and_not_the_copy():
    answers = [
        "Citric acid, two spoons a litre, left for an hour; rinse twice and the taste is gone.",
        "Vinegar works as well, but the smell stays in the kitchen for a day, so I use citric acid now.",
        "Boil it half full with a lemon cut in four, then leave it overnight; it came off in flakes for me.",
    ]
    thread = quoting_post(1, "ada", QUESTION) + "".join(
        quoting_post(n, author, answer, quote=QUESTION)
        for n, (author, answer) in enumerate(zip(["brook", "cyd", "dee"], answers, strict=True), 2)
    )
    text = markdown(f"<main><h1>Descaling</h1>{thread}</main>")
    assert text.count("gone white inside") == 1, "the question is read once, where it was asked"
    assert all(answer[:40] in text for answer in answers)
    assert "Town 2" not in text, "the poster's statistics go"
    assert "Mar 3, 2019" not in text


def test_a_guests_post_is_one_of_the_thread_and_the_similar_threads_beside_it_are_not():
    answers = [
        "Citric acid, two spoons a litre, left for an hour; rinse twice and the taste is gone.",
        "Vinegar works as well, but the smell stays in the kitchen for a day, so I use citric acid now.",
        "Boil it half full with a lemon cut in four, then leave it overnight; it came off in flakes for me.",
    ]
    guest = quoting_post(1, "guest", QUESTION).replace("<a href='/members/guest.1/'>guest</a>", "guest")
    thread = guest + "".join(
        quoting_post(n, author, answer, quote=QUESTION)
        for n, (author, answer) in enumerate(zip(["brook", "cyd", "dee"], answers, strict=True), 2)
    )
    similar = "".join(
        f"<div class='structItem'><a href='/threads/{n}/'>Kettle question {n}</a>"
        f"<a href='/members/{name}.{n}/'>{name}</a><span>Replies {n}</span></div>"
        for n, name in enumerate(["eve", "fay", "gil"], 10)
    )
    text = markdown(
        f"<main><h1>Descaling</h1><div class='block'>{thread}</div><div class='block'>{similar}</div></main>"
    )
    assert text.count("gone white inside") == 1, "a guest, linking to no profile, asked the question the replies quote"
    assert all(answer[:40] in text for answer in answers)
    assert "brook" not in text, "the similar threads linking to profiles leave each post's body found"
    assert "Town 2" not in text


def test_a_quote_of_something_no_earlier_post_said_stays():
    source = (
        "The manufacturer's manual says to descale every month in hard water areas, with its own tablets only,"
        " and never to use vinegar on the heating plate."
    )
    thread = quoting_post(1, "ada", QUESTION) + "".join(
        quoting_post(n, author, f"Reply {n}: that manual is right, citric acid is what the tablets are made of.", q)
        for n, (author, q) in enumerate([("brook", source), ("cyd", ""), ("dee", "")], 2)
    )
    text = markdown(f"<main><h1>Descaling</h1>{thread}</main>")
    assert "descale every month in hard water areas" in text, "a quote from outside the thread is the reply's"


def test_a_blogs_index_of_stories_with_authors_and_dates_is_no_thread():
    stories = "".join(
        f"<div class='entry'><p class='title'><a href='/blog/{n}'>Story {n}</a>, <span class='date'>{n} March 2026</span>"
        f"<br><span class='author'>Writer {n}</span></p><p class='summary'>What changed in release {n} and why,"
        " in the words of the people who made it happen.</p></div>"
        for n in range(1, 6)
    )
    text = markdown(f"<main><h1>The Blog</h1>{stories}</main>")
    assert all(f"Writer {n}" in text and f"{n} March 2026" in text for n in range(1, 6))


API_INDEX = (
    "<h2>Structs</h2><dl class='item-table'>"
    + "".join(
        f"<dt><a href='struct.{name}.html'>{name}</a></dt><dd>{description}</dd>"
        for name, description in [
            ("Builder", "Builds a runtime with custom configuration values."),
            ("Handle", "Handle to the runtime."),
            ("Id", "An opaque ID that identifies a runtime."),
        ]
    )
    + "</dl>"
)


def test_a_table_comparing_linked_products_is_data_and_a_table_of_links_is_not():
    def row(cells: list[str]) -> str:
        return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"

    watches = [
        ("Garmin Forerunner 970 GPS running watch", "$750", "26 hours"),
        ("Coros Apex 4 multisport watch, 42 mm", "$430", "41 hours"),
        ("Polar Grit X2 outdoor watch", "$800", "43 hours"),
    ]
    comparison = (
        "<table>"
        + row(["Watch", "Price", "Battery life"])
        + "".join(
            row([f"<a href='https://shop.example/{name}'>{name}</a>", price, battery])
            for name, price, battery in watches
        )
        + "</table>"
    )
    links = (
        "<table>"
        + "".join(
            row([f"<a href='/w/{n}'>Watch review {n}</a>", f"<a href='/g/{n}'>Buying guide {n}</a>"]) for n in range(3)
        )
        + "</table>"
    )
    text = markdown(
        f"<main><article><h1>GPS watches</h1>{KETTLE_PROSE}<h2>Comparing them</h2>{comparison}{links}</article></main>",
        ARTICLE_TYPE,
    )
    assert "42 mm](https://shop.example/Coros%20Apex%204%20multisport%20watch,%2042%20mm) | $430 | 41 hours |" in text
    assert "Buying guide" not in text


def test_a_syllabus_whose_sections_open_with_a_sentence_keeps_its_lists():
    def section(n: int, name: str, chapters: list[str]) -> str:
        links = "".join(f"<li><a href='/ml/{chapter.lower()}/'>{chapter}</a></li>" for chapter in chapters)
        return (
            f"<h3>{n}. {name}</h3><p>Used when the answer is a category: pass or fail, spam or not.</p><ul>{links}</ul>"
        )

    sections = (
        section(1, "Linear Regression", ["Gradient Descent", "Multiple Regression"])
        + section(2, "Logistic Regression", ["Cost Function", "Understanding Odds"])
        + "<h3>3. Decision Trees</h3><ul><li><a href='/ml/cart/'>The CART algorithm</a></li>"
        "<li><a href='/ml/id3/'>The ID3 algorithm</a></li></ul>"
    )
    intro = f"<p>{'Machine learning lets computers learn from data, and this tutorial covers it all. ' * 3}</p>"
    text = markdown(f"<main><article><h1>Machine Learning Tutorial</h1>{intro}{sections}</article></main>")
    for chapter in ("Gradient Descent", "Understanding Odds", "The CART algorithm"):
        assert f"[{chapter}](" in text


def test_two_lists_under_headings_are_no_syllabus():
    story = f"<p>{'The river rose through the night and the bridge held until dawn. ' * 6}</p>"
    rails = "".join(
        f"<h3>{label}</h3><ul><li><a href='/a{n}'>Another story {n}</a></li><li><a href='/b{n}'>A third {n}</a></li></ul>"
        for n, label in enumerate(["More news", "Elsewhere"])
    )
    text = markdown(f"<main><article><h1>Floods</h1>{story}{rails}</article></main>")
    assert "Another story" not in text


def test_an_api_references_index_of_types_beside_its_description_is_content():
    description = "<div class='docblock'>" + "<p>The runtime drives tasks, timers and I/O; configure it once.</p>" * 6
    page = f"<main><h1>Module runtime</h1><section>{description}</div>{API_INDEX}</section></main>"
    text = markdown(page)
    assert "Builds a runtime with custom configuration values." in text
    assert "## Structs" in text, "the heading of a section that comes along comes with it"


def test_a_definition_list_of_a_shops_fields_is_no_glossary():
    fields = "<dl class='swatches'>" + "".join(
        f"<dt><a href='/c/{n}'>Colour {n}</a></dt><dd>https://cdn.shop.example/thumbs/{n}.jpg</dd>" for n in range(5)
    )
    page = f"<main><h1>Staple tee</h1><div class='info'>{KETTLE_PROSE * 3}</div>{fields}</dl></main>"
    assert "cdn.shop.example" not in markdown(page)


def test_a_listing_cards_title_named_for_its_header_is_its_title():
    cards = "".join(
        f"<li class='listing'><a href='/jobs/{n}'><div class='listing__header'><h3 class='listing__header__title'>"
        f"<span class='listing__header__title__text'>Senior engineer {n}</span></h3><p>{n}d</p></div>"
        f"<p class='listing__company'>Company {n}</p><p class='listing__place'>Remote, anywhere</p></a></li>"
        for n in range(1, 8)
    )
    text = markdown(f"<main><h1>Jobs</h1><ul class='jobs'>{cards}</ul></main>")
    assert all(f"Senior engineer {n}" in text for n in range(1, 8))


def test_a_guides_headed_section_of_linked_steps_is_content():
    steps = "".join(
        f"<li><p><a href='https://tools.example/{n}'>Install the {tool} command line tool</a>.</p></li>"
        for n, tool in enumerate(["kettle", "descaler", "timer", "thermometer", "scale"])
    )
    section = (
        "<section><h2>Complete the prerequisites</h2><p>Before you send your first message, set up the tools"
        " this guide uses: the five below, on the computer you will work from. Each takes a minute or two, and"
        " each installer asks the same questions; the defaults are right for this guide. When all five answer"
        " to their names in a terminal, go on to the next step.</p>"
        f"<ul>{steps}</ul></section>"
    )
    text = markdown(f"<main><h1>Quickstart</h1>{KETTLE_PROSE * 3}{section}{KETTLE_PROSE}</main>")
    assert "Before you send your first message" in text
    assert "Install the thermometer command line tool" in text


def test_a_menu_folded_in_a_closed_disclosure_goes_and_a_folded_answer_stays():
    languages = "".join(f"<a href='/trending?language={n}'>Language number {n}</a>" for n in range(40))
    menu = f"<details class='select-menu'><summary>Spoken language: Any</summary><div>{languages}</div></details>"
    answer = (
        "<details><summary>How often should I descale?</summary><p>Every month in hard water, every three"
        " months in soft water; sooner when the kettle starts to rumble.</p></details>"
    )
    repositories = "".join(
        f"<article class='row'><h2><a href='/owner/repo{n}'>owner / repo{n}</a></h2><p>A library number {n} that"
        " descales kettles from the command line, with a plugin for every brand of kettle.</p></article>"
        for n in range(8)
    )
    text = markdown(f"<main><h1>Trending</h1>{menu}{repositories}{answer}</main>")
    assert "Language number 7" not in text
    assert "every three months in soft water" in text
    assert "A library number 5" in text


def test_a_declaration_folded_in_a_closed_disclosure_keeps_its_linked_names():
    methods = "".join(
        f"    fn <a href='#tymethod.{name}' class='fn'>{name}</a>(&amp;self) -&gt; "
        f"<a class='primitive' href='/primitive.{kind}.html'>{kind}</a>;\n"
        for name, kind in [("litres", "u32"), ("watts", "u64"), ("boiled", "bool")]
    )
    declaration = (
        "<pre class='rust item-decl'><code>pub trait Kettle {\n<details class='toggle type-contents-toggle'>"
        f"<summary class='hideme'><span>Show 3 methods</span></summary>{methods}</details>}}</code></pre>"
    )
    loose_menu = (
        "<details><summary>Jump to</summary>"
        + "".join(f"<a href='/kettles/{n}'>Kettle model {n}</a> " for n in range(12))
        + "</details>"
    )
    text = markdown(f"<main><h1>Trait Kettle</h1>{declaration}{loose_menu}{DOC_PROSE}</main>")
    assert "fn litres(&self) -> u32;" in text, "a declaration's names are links among its words, not a menu"
    assert "fn boiled(&self) -> bool;" in text
    assert "Kettle model 7" not in text, "links folded loose in a disclosure are still a menu"


def test_every_tab_of_an_install_command_is_kept():
    tabs = "".join(
        f"<div id='tab-panel-{n}' role='tabpanel'{' hidden' if n else ''}><pre><code>{tool} create kettle-app</code>"
        "</pre></div>"
        for n, tool in enumerate(["npm", "yarn", "pnpm"])
    )
    tablist = (
        "<ul role='tablist'>" + "".join(f"<li><a href='#tab-panel-{n}'>tab {n}</a></li>" for n in range(3)) + "</ul>"
    )
    page = f"<main><h1>Create a project</h1>{KETTLE_PROSE * 2}<div class='tabs'>{tablist}{tabs}</div></main>"
    text = markdown(page)
    assert "yarn create kettle-app" in text
    assert "pnpm create kettle-app" in text


def test_a_list_announced_by_the_sentence_before_it_in_its_block_is_the_texts_nested_lists_too():
    guides = "".join(f"<li><a href='/docs/descale-{n}'>Descaling guide {n}</a></li>" for n in range(4))
    item = (
        "<li><b>Get help descaling</b>. The assistant suggests a descaler and explains a label. To learn how,"
        f" see the following documentation:<br><ul><li>Descaling<ul>{guides}</ul></li></ul></li>"
    )
    page = f"<main><h1>Overview</h1>{KETTLE_PROSE * 3}<ul>{item}<li>{KETTLE_PROSE}</li></ul></main>"
    assert "Descaling guide 2" in markdown(page)


def test_the_sections_beside_a_wrapper_that_holds_only_the_candidate_are_its_siblings():
    description = "".join(
        f"<p>The runtime {n} drives the timers, the sockets and the tasks of a program, one queue per worker,"
        " and a task woken elsewhere goes to the shared queue, as the scheduler decides.</p>"
        for n in range(4)
    )
    items = "".join(
        f"<dt><a href='struct.{name}.html'>{name}</a></dt><dd>{said}</dd>"
        for name, said in [
            ("Builder", "Builds a runtime with custom configuration values."),
            ("Handle", "A handle to the runtime, cheap to clone."),
            ("Runtime", "The runtime itself, with its scheduler and its drivers."),
        ]
    )
    page = (
        f"{NAV}<section><h1>Module runtime</h1>"
        f"<details open class='toggle top-doc'><summary>Expand description</summary>"
        f"<div class='docblock'>{description}</div></details>"
        f"<h2 id='structs'>Structs</h2><dl class='item-table'>{items}</dl></section>"
    )
    text = markdown(page)
    assert "The runtime 3 drives the timers" in text
    assert "## Structs" in text, "the heading of a section beside the wrapper comes with it"
    assert "Builds a runtime with custom configuration values." in text
    assert "Home" not in text


def test_a_guide_written_below_the_main_landmark_comes_with_it():
    cards = "".join(
        f"<li class='product'><a href='/lens/{n}'>Lens {n}, 50 mm f/1.8</a><span class='price'>${n}99</span></li>"
        for n in range(1, 61)
    )
    guide = "".join(
        f"<p>A prime lens {n} lets in more light than a zoom, so a portrait stays sharp indoors, and the"
        " background falls away softly behind the face; pick the mount of your camera first.</p>"
        for n in range(3)
    )
    page = (
        f"{NAV}<div class='page'><main><h1>Mirrorless lenses</h1><ul class='grid'>{cards}</ul></main>"
        f"<div class='category-text'><section><h2>Choosing a lens</h2>{guide}</section></div></div>"
        "<footer><a href='/about'>About us</a></footer>"
    )
    text = markdown(page)
    assert "Lens 60, 50 mm f/1.8" in text
    assert "A prime lens 2 lets in more light" in text, "prose beside main is the page's too"
    assert "About us" not in text


def reference_page(head: str = "") -> str:
    """An API reference set as sections side by side, as Node's is: a short overview, one long
    class, a usage line with its code."""
    members = "".join(
        f"<h3>console.method{n}()</h3><p>Prints to stdout with a newline, formatting each of its arguments the way"
        f" util.format() does, method {n} of the class, and returns nothing at all to its caller.</p>"
        for n in range(12)
    )
    return markdown(
        f"{NAV}<div role='main'><h2>Console</h2>"
        "<section><h3>Overview</h3><p>The module exports a Console class and a global console.</p></section>"
        f"<section><h3>Class: Console</h3>{members}</section>"
        "<section><h3>Usage</h3><pre><code>node --inspect app.js</code></pre><p>Then open the inspector.</p></section>"
        "<section><h3>See also</h3><p><a href='/util'>util</a> <a href='/repl'>repl</a> <a href='/tty'>tty</a>"
        " <a href='/process'>process</a></p></section></div>",
        head,
    )


def test_the_short_sections_beside_a_long_one_are_parts_of_the_same_document():
    text = reference_page()
    assert "method11()" in text
    assert "The module exports a Console class" in text, "the overview before the long section"
    assert "node --inspect app.js" in text, "the usage after it, its code with it"
    assert "[repl]" not in text, "a section of links is no part of what the page says"
    assert "Home" not in text


@pytest.mark.parametrize("wrappers", [0, 1, 2])
def test_sections_each_wrapped_in_a_div_of_their_own_are_still_parts_of_the_same_document(wrappers: int):
    def wrapped(section: str) -> str:
        return "<div class='css-cen'>" * wrappers + section + "</div>" * wrappers

    answers = "".join(
        f"<h3>Do I need insurance for trip {n}?</h3><p>As required by law, you must keep your own insurance for"
        f" trip {n}, and the platform adds its cover while you are online and on a trip with a rider.</p>"
        for n in range(12)
    )
    text = markdown(
        f"{NAV}<main>"
        + wrapped(
            "<section><h2>Insurance to help protect you</h2><p>Our cover meets every state's rules.</p></section>"
        )
        + wrapped("<section><h2>Coverage when you are offline</h2><p>Your own policy covers you then.</p></section>")
        + wrapped(f"<section><div class='faq'><h2>Frequently asked questions</h2>{answers}</div></section>")
        + wrapped(
            "<section><p><a href='/ca'>California</a> <a href='/ny'>New York</a> <a href='/tx'>Texas</a>"
            " <a href='/wa'>Washington</a></p></section>"
        )
        + "</main><div class='promo'><p>Download the app and drive with us: earn on your own schedule.</p></div>"
    )
    assert "trip 11" in text
    assert "Our cover meets every state's rules" in text, "the section before the long one"
    assert "Your own policy covers you then" in text
    assert "[Texas]" not in text, "a section of links is no part of what the page says"
    assert "Download the app" not in text, "what is not a section is not one of the parts"


def test_sections_after_a_declared_articles_story_are_not_its_parts():
    assert "node --inspect app.js" not in reference_page(ARTICLE_TYPE)


def themed_docs_page(sidebar_class: str) -> str:
    """A short Sphinx page as pydata-sphinx-theme and sphinx-book-theme lay it out: the project's
    sidebar (its blurb, its links) beside a ``main`` whose ``article`` is one section, the id of
    which spells a title opening with a role word."""
    links = "".join(f"<li><a href='/{n}.html'>Guide {n}</a></li>" for n in range(8))
    blurb = (
        "<p>Kettlelib is an elegant and simple library for boiling water from Python, built for people who"
        " like their tea hot and their code short, and tested on every kettle we could find.</p>"
    )
    return markdown(
        f"{NAV}<div class='{sidebar_class}'><p class='logo'><a href='/'>Kettlelib</a></p>{blurb * 2}"
        f"<h3>Useful Links</h3><ul>{links}</ul></div>"
        "<main class='bd-main'><div class='bd-content'><article class='bd-article'>"
        "<section id='community-updates'><h1>Community Updates</h1><p>If you would like to stay up to date on"
        " the community and development of Kettlelib, there are several options.</p><section id='github'>"
        "<h2>GitHub</h2><p>The best way to track the development of Kettlelib is through its repository.</p>"
        "</section></section></article></div></main>"
    )


@pytest.mark.parametrize("sidebar_class", ["bd-sidebar-primary bd-sidebar", "sidebar-primary-item"])
def test_a_themes_sidebar_beside_a_short_page_in_main_is_furniture(sidebar_class: str):
    text = themed_docs_page(sidebar_class)
    assert "stay up to date on the community" in text, "the section that is all the article says is the page"
    assert "The best way to track the development" in text
    assert "elegant and simple" not in text, "the sidebar beside main says more, and is still a sidebar"
    assert "Guide 3" not in text


def test_a_block_named_like_furniture_that_is_all_its_article_says_is_the_article():
    aside = "".join(f"<p>Kettle {n} boils in three minutes and costs {n}9 pounds.</p>" for n in range(6))
    text = markdown(
        f"{NAV}<div class='columns'><article><div id='community-news'><h1>Community news</h1><p>The descaling"
        f" meetup moves to Thursdays, and the next one is in Leeds.</p></div></article>"
        f"<div class='shop-window'>{aside}</div></div>"
    )
    assert "The descaling meetup moves to Thursdays" in text


def api_reference(
    functions: list[str], example: str, returned: str = "<code class='docutils literal'>Kettle</code>"
) -> str:
    """A Sphinx API page: each function's signature over its field list ("Parameters", "Returns")."""
    entries = "".join(
        f"<dl class='py function'><dt class='sig sig-object py' id='kettle.{name}'>"
        f"<span class='sig-name descname'><span class='pre'>kettle.{name}</span></span>(<em>litres</em>)</dt>"
        f"<dd><p>Boils the water with the {name} programme.</p><dl class='field-list simple'>"
        "<dt class='field-odd'>Parameters<span class='colon'>:</span></dt><dd class='field-odd'><p><strong>litres"
        f"</strong> – how much water to {name}.</p></dd><dt class='field-even'>Returns<span class='colon'>:</span></dt>"
        f"<dd class='field-even'><p>the {returned} once it is done with {name}</p></dd>"
        "</dl></dd></dl>"
        for name in functions
    )
    return markdown(
        f"{NAV}<div role='main'><section id='api'><h1>Developer Interface</h1><p>This part of the documentation"
        f" covers all the interfaces of Kettlelib, the functions and the classes alike.</p>{example}{entries}"
        "</section></div>"
    )


def test_the_terms_every_function_of_a_reference_repeats_are_its_outline():
    text = api_reference(["boil", "simmer", "warm", "descale"], "<pre>&gt;&gt;&gt; kettle.boil(1)</pre>")
    assert text.count("Parameters") == 4, "each function's field list keeps its terms"
    assert text.count("Returns") == 4
    assert "how much water to descale." in text


def test_a_repeated_term_is_still_a_label_where_no_code_is_shown():
    assert "Parameters" not in api_reference(["boil", "simmer", "warm", "descale"], "", returned="Kettle")


def test_a_section_whose_sentence_links_and_announces_its_list_of_links_is_the_texts():
    flows = "".join(
        f"<li><p><a href='https://oauth.example/flows#{n}'>{name} Application Flow</a></p></li>"
        for n, name in enumerate(["Web", "Mobile", "Legacy", "Backend"])
    )
    prose = "".join(
        f"<p>Authentication {n} is set per request or per session, and the session sends it with every request"
        " it makes, to every host the request is redirected to, unless the host changes.</p>"
        for n in range(6)
    )
    text = markdown(
        f"{NAV}<main><h1>Authentication</h1>{prose}<section id='oauth-2'><h2>OAuth 2</h2><p>The oauthlib"
        " library also handles OAuth 2. See the <a href='https://oauth.example/flows'>oauthlib OAuth 2"
        " documentation</a> for the various credential flows:</p>"
        f"<ul class='simple'>{flows}</ul></section></main>"
    )
    assert "Legacy Application Flow" in text
    assert "also handles OAuth 2" in text


def test_an_api_references_section_on_cookies_is_no_cookie_notice():
    functions = "".join(
        f"<dl class='py function'><dt class='sig sig-object py' id='kettle.cookies.{name}'>"
        f"<span class='sig-name descname'><span class='pre'>kettle.cookies.{name}</span></span>(<em>jar</em>)</dt>"
        f"<dd><p>{said}</p></dd></dl>"
        for name, said in [
            ("dict_from_jar", "Returns a dictionary of the cookies the jar holds, by name."),
            ("add_to_jar", "Adds each cookie of a dictionary to the jar, replacing those of the same name."),
        ]
    )
    prose = "".join(
        f"<p>Kettlelib {n} sends the session's headers with each request it makes to the kettle's own"
        " server, and reads the answer as the kettle writes it, a line at a time.</p>"
        for n in range(4)
    )
    text = markdown(
        f"{NAV}<div role='main'><section id='api'><h1>Developer Interface</h1>{prose}"
        f"<section id='cookies'><h2>Cookies</h2>{functions}</section></section></div>"
    )
    assert "Returns a dictionary of the cookies the jar holds" in text
    assert "## Cookies" in text


def test_an_image_that_says_nothing_still_stands_between_the_words_beside_it():
    rating = (
        "<p><span>10,467 five star reviews</span><img alt='star' src='/star.png'><span>Trustpilot</span></p>"
        "<p>Call<img src='/phone.svg'>0800 123 456</p><p>Made in <img alt='Dundee' src='/dundee.jpg'>Scotland</p>"
    )
    page = f"<html><body><main><h1>Kettle descaling</h1>{KETTLE_PROSE}{rating}</main></body></html>".encode()
    document = extract(page, url="https://forum.example/t/1", content_type="text/html")
    assert "five star reviews Trustpilot" in document.markdown
    assert "Call 0800 123 456" in document.markdown
    assert "Made in ![Dundee](https://forum.example/dundee.jpg) Scotland" in document.markdown
    assert "five star reviews Trustpilot" in document.text
    assert "Made in Scotland" in document.text


def test_a_heading_named_a_header_is_the_heading_it_says_it_is():
    blurbs = "".join(
        f"<div class='et_pb_blurb'><div class='et_pb_blurb_container'><h4 class='et_pb_module_header'>"
        f"<a href='/services/{slug}'>{name}</a></h4><div class='et_pb_blurb_description'><p>For the"
        " kettle makers of Dundee: we write it, you send it.</p></div></div></div>"
        for slug, name in (("letters", "Cover Letter Help"), ("coaching", "Career Coaching"), ("cv", "Resume Review"))
    )
    banner = (
        "<div class='site-header'><a href='/'>Home</a> <a href='/about'>About us</a> <a href='/jobs'>Jobs</a></div>"
    )
    text = markdown(f"{banner}<main><h1>Our services</h1>{KETTLE_PROSE}{blurbs}</main>")
    assert "#### [Cover Letter Help](https://forum.example/services/letters)" in text
    assert "#### [Career Coaching](https://forum.example/services/coaching)" in text
    assert "About us" not in text, "a block named a header that is no heading is still the site's header"
