# ruff: noqa: E501  (pages of markup: a tag split over lines reads worse than a long line)
"""The pages of bench/structured.py: 32 pages written for it (products, articles, events,
people, job posts, tables), each with a schema and the values a careful reader would fill in
by hand. Facts sit where real sites put them: in JSON-LD, microdata, OpenGraph, definition
lists and tables, or only in the prose (which only a model can read). A field the page does
not state is expected null.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

__all__ = ["CASES", "Case"]


@dataclass(frozen=True)
class Case:
    kind: str  # product, article, event, person, job, table
    host: str
    path: str
    html: str
    schema: dict[str, Any]
    expected: dict[str, Any]


def _schema(**fields: str | dict[str, Any]) -> dict[str, Any]:
    props = {k: ({"type": v} if isinstance(v, str) else v) for k, v in fields.items()}
    return {"type": "object", "properties": props}


def _ld(obj: dict[str, Any]) -> str:
    return f'<script type="application/ld+json">{json.dumps(obj)}</script>'


def _page(title: str, body: str, head: str = "") -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>{head}</head>
<body><header><nav><a href="/">Home</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav></header>
<main><article><h1>{html.escape(title)}</h1>
{body}
</article></main>
<footer>Copyright the publisher. Privacy. Terms.</footer></body></html>"""


def _og(**tags: str) -> str:
    """OpenGraph tags: `og__site_name` is `og:site_name`."""
    return "".join(
        f'<meta property="{k.replace("__", ":")}" content="{html.escape(v)}">'
        for k, v in tags.items()
    )


PRODUCT = _schema(name="string", brand="string", price="number", currency="string", sku="string")

CASES: tuple[Case, ...] = (
    # -- products ------------------------------------------------------------------------------
    Case(
        "product",
        "shop.test",
        "/tents/ridgeline-2",
        _page(
            "Ridgeline 2 Tent",
            "<p>A two-person tent that pitches in four minutes and weighs 1.9 kg.</p>",
            _ld(
                {
                    "@context": "https://schema.org",
                    "@type": "Product",
                    "name": "Ridgeline 2 Tent",
                    "brand": {"@type": "Brand", "name": "Fellcraft"},
                    "sku": "FC-RL2",
                    "offers": {"@type": "Offer", "price": "289.00", "priceCurrency": "EUR"},
                }
            ),
        ),
        PRODUCT,
        {
            "name": "Ridgeline 2 Tent",
            "brand": "Fellcraft",
            "price": 289.0,
            "currency": "EUR",
            "sku": "FC-RL2",
        },
    ),
    Case(
        "product",
        "shop.test",
        "/audio/ketch-headphones",
        _page(
            "Ketch Wireless Headphones",
            '<div itemscope itemtype="https://schema.org/Product">'
            '<span itemprop="name">Ketch Wireless Headphones</span>'
            '<span itemprop="brand">Marlowe Audio</span>'
            '<meta itemprop="sku" content="MA-KETCH-BLK">'
            '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">'
            '<span itemprop="price" content="149.99">$149.99</span>'
            '<meta itemprop="priceCurrency" content="USD"></div></div>'
            "<p>Forty hours of battery and a fold-flat hinge.</p>",
        ),
        PRODUCT,
        {
            "name": "Ketch Wireless Headphones",
            "brand": "Marlowe Audio",
            "price": 149.99,
            "currency": "USD",
            "sku": "MA-KETCH-BLK",
        },
    ),
    Case(
        "product",
        "shop.test",
        "/kitchen/oak-board",
        _page(
            "Oak Chopping Board",
            "<p>End-grain oak, oiled by hand.</p>"
            "<table><tr><th>Brand</th><td>Hearth &amp; Grain</td></tr>"
            "<tr><th>Price</th><td>£45.00</td></tr><tr><th>SKU</th><td>HG-OAK-40</td></tr>"
            "<tr><th>Size</th><td>40 x 30 cm</td></tr></table>",
            _og(og__title="Oak Chopping Board", og__type="product"),
        ),
        _schema(name="string", brand="string", price="number", sku="string", size="string"),
        {
            "name": "Oak Chopping Board",
            "brand": "Hearth & Grain",
            "price": 45.0,
            "sku": "HG-OAK-40",
            "size": "40 x 30 cm",
        },
    ),
    Case(
        "product",
        "shop.test",
        "/bikes/tarn-city",
        _page(
            "Tarn City Bike",
            "<p>The Tarn City is built by Osprey Cycles in Leeds. It costs 640 pounds and "
            "comes in three frame sizes.</p><p>Its hub gear has eight speeds.</p>",
        ),
        _schema(name="string", maker="string", price="number", gears="integer"),
        {"name": "Tarn City Bike", "maker": "Osprey Cycles", "price": 640, "gears": 8},
    ),
    Case(
        "product",
        "shop.test",
        "/tea/smoky-lapsang",
        _page(
            "Smoky Lapsang, 250 g",
            "<p>Pine-smoked black tea from the Wuyi mountains.</p>",
            _ld(
                {
                    "@context": "https://schema.org",
                    "@type": "Product",
                    "name": "Smoky Lapsang",
                    "brand": "Cask Tea Co",
                    "sku": "CT-LAP-250",
                    "offers": {
                        "@type": "Offer",
                        "price": 12.5,
                        "priceCurrency": "GBP",
                        "availability": "https://schema.org/OutOfStock",
                    },
                    "aggregateRating": {
                        "@type": "AggregateRating",
                        "ratingValue": 4.8,
                        "reviewCount": 93,
                    },
                }
            ),
        ),
        _schema(name="string", brand="string", price="number", in_stock="boolean", rating="number"),
        {
            "name": "Smoky Lapsang",
            "brand": "Cask Tea Co",
            "price": 12.5,
            "in_stock": False,
            "rating": 4.8,
        },
    ),
    Case(
        "product",
        "shop.test",
        "/garden/rain-barrel",
        _page(
            "Rain Barrel 200 L",
            "<dl><dt>Capacity</dt><dd>200 litres</dd><dt>Material</dt><dd>Recycled polypropylene</dd>"
            "<dt>Price</dt><dd>€79</dd><dt>Colour</dt><dd>Slate grey</dd></dl>",
        ),
        _schema(
            capacity="string", material="string", price="number", colour="string", warranty="string"
        ),
        {
            "capacity": "200 litres",
            "material": "Recycled polypropylene",
            "price": 79,
            "colour": "Slate grey",
            "warranty": None,
        },
    ),
    # -- articles ------------------------------------------------------------------------------
    Case(
        "article",
        "news.test",
        "/2026/03/bridge-reopens",
        _page(
            "Swing bridge reopens after a year of repairs",
            "<p>The Kelby swing bridge reopened to traffic on Tuesday after repairs that cost "
            "4.2 million pounds.</p>",
            _ld(
                {
                    "@context": "https://schema.org",
                    "@type": "NewsArticle",
                    "headline": "Swing bridge reopens after a year of repairs",
                    "author": {"@type": "Person", "name": "Dana Whitlock"},
                    "datePublished": "2026-03-17",
                    "publisher": {"@type": "Organization", "name": "Kelby Courier"},
                }
            ),
        ),
        _schema(title="string", author="string", published="string", publisher="string"),
        {
            "title": "Swing bridge reopens after a year of repairs",
            "author": "Dana Whitlock",
            "published": "2026-03-17",
            "publisher": "Kelby Courier",
        },
    ),
    Case(
        "article",
        "news.test",
        "/science/eel-migration",
        _page(
            "Tagged eels reach the Sargasso Sea",
            "<p>Researchers at the Marine Institute tracked 38 eels across the Atlantic.</p>",
            _og(
                og__title="Tagged eels reach the Sargasso Sea",
                article__published_time="2026-02-02T09:00:00Z",
                article__author="Priya Nandakumar",
                og__site_name="Tideline Science",
            ),
        ),
        _schema(title="string", author="string", site_name="string", published_time="string"),
        {
            "title": "Tagged eels reach the Sargasso Sea",
            "author": "Priya Nandakumar",
            "site_name": "Tideline Science",
            "published_time": "2026-02-02T09:00:00Z",
        },
    ),
    Case(
        "article",
        "blog.test",
        "/posts/sourdough-starter",
        _page(
            "Keeping a sourdough starter through the winter",
            "<p class='byline'>By Tomas Berglund</p><p>A cold kitchen slows the starter; feed it "
            "once every two days and keep it near the oven.</p>",
        ),
        _schema(title="string", author="string", feeding_interval="string"),
        {
            "title": "Keeping a sourdough starter through the winter",
            "author": "Tomas Berglund",
            "feeding_interval": "once every two days",
        },
    ),
    Case(
        "article",
        "news.test",
        "/business/ferry-fares",
        _page(
            "Ferry fares rise by six per cent",
            "<p>Island Link will raise its fares by 6 per cent from 1 April, the operator said.</p>"
            "<p>A return ticket for a car will cost 58 pounds.</p>",
            _ld(
                {
                    "@context": "https://schema.org",
                    "@type": "NewsArticle",
                    "headline": "Ferry fares rise by six per cent",
                    "datePublished": "2026-01-20",
                }
            ),
        ),
        _schema(
            headline="string", date_published="string", operator="string", car_return_fare="number"
        ),
        {
            "headline": "Ferry fares rise by six per cent",
            "date_published": "2026-01-20",
            "operator": "Island Link",
            "car_return_fare": 58,
        },
    ),
    Case(
        "article",
        "blog.test",
        "/notes/rust-lifetimes",
        _page(
            "Lifetimes without tears",
            "<p>Most lifetime errors come from returning a reference to a local value.</p>",
            _ld(
                {
                    "@context": "https://schema.org",
                    "@graph": [
                        {
                            "@type": "BlogPosting",
                            "headline": "Lifetimes without tears",
                            "author": {"@type": "Person", "name": "Ines Halvorsen"},
                            "wordCount": 1840,
                        },
                        {"@type": "WebSite", "name": "Borrowed Time"},
                    ],
                }
            ),
        ),
        _schema(headline="string", author="string", word_count="integer", license="string"),
        {
            "headline": "Lifetimes without tears",
            "author": "Ines Halvorsen",
            "word_count": 1840,
            "license": None,
        },
    ),
    # -- events --------------------------------------------------------------------------------
    Case(
        "event",
        "events.test",
        "/folk-night",
        _page(
            "Harbour Folk Night",
            "<p>Three bands, one long evening by the water.</p>",
            _ld(
                {
                    "@context": "https://schema.org",
                    "@type": "MusicEvent",
                    "name": "Harbour Folk Night",
                    "startDate": "2026-06-12T19:30",
                    "endDate": "2026-06-12T23:00",
                    "location": {
                        "@type": "Place",
                        "name": "The Net Loft",
                        "address": {"@type": "PostalAddress", "addressLocality": "Kelby"},
                    },
                    "offers": {"@type": "Offer", "price": "15", "priceCurrency": "GBP"},
                }
            ),
        ),
        _schema(
            name="string",
            start_date="string",
            end_date="string",
            venue="string",
            city="string",
            price="number",
        ),
        {
            "name": "Harbour Folk Night",
            "start_date": "2026-06-12T19:30",
            "end_date": "2026-06-12T23:00",
            "venue": "The Net Loft",
            "city": "Kelby",
            "price": 15,
        },
    ),
    Case(
        "event",
        "events.test",
        "/pycon-north",
        _page(
            "PyCon North 2026",
            "<dl><dt>Dates</dt><dd>9-11 October 2026</dd><dt>Venue</dt><dd>Tyne Conference Centre</dd>"
            "<dt>City</dt><dd>Newcastle</dd><dt>Tickets</dt><dd>£120</dd></dl>",
        ),
        _schema(
            dates="string", venue="string", city="string", tickets="number", organizer="string"
        ),
        {
            "dates": "9-11 October 2026",
            "venue": "Tyne Conference Centre",
            "city": "Newcastle",
            "tickets": 120,
            "organizer": None,
        },
    ),
    Case(
        "event",
        "events.test",
        "/talks/comets",
        _page(
            "Evening talk: the comets of 2026",
            "<p>Dr Lena Osei will speak at the Observatory Hall on 4 March at 7 pm. Entry is free.</p>",
        ),
        _schema(speaker="string", venue="string", date="string", entry_fee="string"),
        {
            "speaker": "Dr Lena Osei",
            "venue": "Observatory Hall",
            "date": "4 March",
            "entry_fee": "free",
        },
    ),
    Case(
        "event",
        "events.test",
        "/marathon",
        _page(
            "Estuary Marathon",
            "<p>The course follows the estuary path both ways.</p>",
            _ld(
                {
                    "@context": "https://schema.org",
                    "@type": "SportsEvent",
                    "name": "Estuary Marathon",
                    "startDate": "2026-09-20T08:00",
                    "organizer": {"@type": "Organization", "name": "Kelby Harriers"},
                    "location": {"@type": "Place", "name": "Quay Green"},
                }
            ),
        ),
        _schema(
            name="string",
            start_date="string",
            organizer="string",
            location="string",
            distance_km="number",
        ),
        {
            "name": "Estuary Marathon",
            "start_date": "2026-09-20T08:00",
            "organizer": "Kelby Harriers",
            "location": "Quay Green",
            "distance_km": None,
        },
    ),
    Case(
        "event",
        "events.test",
        "/workshops/letterpress",
        _page(
            "Letterpress workshop",
            "<table><tr><th>Date</th><td>Saturday 14 November</td></tr><tr><th>Time</th><td>10:00-16:00</td></tr>"
            "<tr><th>Tutor</th><td>Agnes Moll</td></tr><tr><th>Places</th><td>8</td></tr></table>",
        ),
        _schema(date="string", time="string", tutor="string", places="integer"),
        {"date": "Saturday 14 November", "time": "10:00-16:00", "tutor": "Agnes Moll", "places": 8},
    ),
    # -- people --------------------------------------------------------------------------------
    Case(
        "person",
        "people.test",
        "/staff/orla-byrne",
        _page(
            "Orla Byrne",
            "<p>Orla leads the hydrology group.</p>",
            _ld(
                {
                    "@context": "https://schema.org",
                    "@type": "Person",
                    "name": "Orla Byrne",
                    "jobTitle": "Professor of Hydrology",
                    "email": "o.byrne@uni.test",
                    "worksFor": {"@type": "Organization", "name": "University of Kelby"},
                }
            ),
        ),
        _schema(name="string", job_title="string", email="string", works_for="string"),
        {
            "name": "Orla Byrne",
            "job_title": "Professor of Hydrology",
            "email": "o.byrne@uni.test",
            "works_for": "University of Kelby",
        },
    ),
    Case(
        "person",
        "people.test",
        "/authors/kwame-asante",
        _page(
            "Kwame Asante",
            '<div itemscope itemtype="https://schema.org/Person"><span itemprop="name">Kwame Asante</span>, '
            '<span itemprop="jobTitle">Staff Photographer</span>. '
            '<a itemprop="url" href="https://people.test/kwame">Portfolio</a></div>',
        ),
        _schema(name="string", job_title="string", url="string", phone="string"),
        {
            "name": "Kwame Asante",
            "job_title": "Staff Photographer",
            "url": "https://people.test/kwame",
            "phone": None,
        },
    ),
    Case(
        "person",
        "people.test",
        "/team/mira-sato",
        _page(
            "Mira Sato",
            "<p>Mira Sato joined the company as Chief Engineer in 2019. Before that she designed "
            "tidal turbines for eleven years.</p>",
        ),
        _schema(name="string", role="string", joined="integer"),
        {"name": "Mira Sato", "role": "Chief Engineer", "joined": 2019},
    ),
    Case(
        "person",
        "people.test",
        "/contacts/harbour-master",
        _page(
            "Harbour master",
            "<dl><dt>Name</dt><dd>Captain Eilif Strand</dd><dt>Phone</dt><dd>+44 1632 960 118</dd>"
            "<dt>Email</dt><dd>harbour@kelby.test</dd></dl>",
        ),
        _schema(name="string", phone="string", email="string"),
        {
            "name": "Captain Eilif Strand",
            "phone": "+44 1632 960 118",
            "email": "harbour@kelby.test",
        },
    ),
    Case(
        "person",
        "people.test",
        "/speakers/ada-quist",
        _page(
            "Ada Quist",
            "<p>Ada Quist writes about bridges.</p>",
            _og(
                og__title="Ada Quist",
                og__type="profile",
                profile__first_name="Ada",
                profile__last_name="Quist",
            ),
        ),
        _schema(first_name="string", last_name="string", employer="string"),
        {"first_name": "Ada", "last_name": "Quist", "employer": None},
    ),
    # -- job posts -----------------------------------------------------------------------------
    Case(
        "job",
        "jobs.test",
        "/roles/1881",
        _page(
            "Backend Engineer (Python)",
            "<p>Join a small team building flood forecasts.</p>",
            _ld(
                {
                    "@context": "https://schema.org",
                    "@type": "JobPosting",
                    "title": "Backend Engineer (Python)",
                    "hiringOrganization": {"@type": "Organization", "name": "Floodline"},
                    "jobLocation": {
                        "@type": "Place",
                        "address": {"@type": "PostalAddress", "addressLocality": "Bristol"},
                    },
                    "employmentType": "FULL_TIME",
                    "datePosted": "2026-04-02",
                    "baseSalary": {
                        "@type": "MonetaryAmount",
                        "currency": "GBP",
                        "value": {"@type": "QuantitativeValue", "value": 62000},
                    },
                }
            ),
        ),
        _schema(
            title="string",
            company="string",
            city="string",
            employment_type="string",
            salary="number",
            date_posted="string",
        ),
        {
            "title": "Backend Engineer (Python)",
            "company": "Floodline",
            "city": "Bristol",
            "employment_type": "FULL_TIME",
            "salary": 62000,
            "date_posted": "2026-04-02",
        },
    ),
    Case(
        "job",
        "jobs.test",
        "/roles/1902",
        _page(
            "Ferry Deckhand",
            "<dl><dt>Company</dt><dd>Island Link</dd><dt>Location</dt><dd>Kelby Quay</dd>"
            "<dt>Hours</dt><dd>Seasonal, April to October</dd><dt>Pay</dt><dd>£14.20 an hour</dd></dl>",
        ),
        _schema(
            company="string", location="string", hours="string", pay="number", closing_date="string"
        ),
        {
            "company": "Island Link",
            "location": "Kelby Quay",
            "hours": "Seasonal, April to October",
            "pay": 14.2,
            "closing_date": None,
        },
    ),
    Case(
        "job",
        "jobs.test",
        "/roles/1915",
        _page(
            "Data Librarian",
            "<p>The Kelby Archive is looking for a data librarian to catalogue its survey records. "
            "The post is part-time, three days a week, and the closing date is 30 May.</p>",
        ),
        _schema(title="string", employer="string", hours="string", closing_date="string"),
        {
            "title": "Data Librarian",
            "employer": "The Kelby Archive",
            "hours": "three days a week",
            "closing_date": "30 May",
        },
    ),
    Case(
        "job",
        "jobs.test",
        "/roles/1930",
        _page(
            "Site Reliability Engineer",
            "<table><tr><th>Team</th><td>Platform</td></tr><tr><th>Location</th><td>Remote (UK)</td></tr>"
            "<tr><th>Salary</th><td>£70,000</td></tr><tr><th>Type</th><td>Permanent</td></tr></table>",
        ),
        _schema(team="string", location="string", salary="number", type="string"),
        {"team": "Platform", "location": "Remote (UK)", "salary": 70000, "type": "Permanent"},
    ),
    Case(
        "job",
        "jobs.test",
        "/roles/1944",
        _page(
            "Boatbuilder's Apprentice",
            "<p>Two-year apprenticeship.</p>",
            _ld(
                {
                    "@context": "https://schema.org",
                    "@type": "JobPosting",
                    "title": "Boatbuilder's Apprentice",
                    "hiringOrganization": "Strand Boatyard",
                    "employmentType": "APPRENTICESHIP",
                    "validThrough": "2026-07-31",
                }
            ),
        ),
        _schema(
            title="string",
            company="string",
            employment_type="string",
            valid_through="string",
            salary="number",
        ),
        {
            "title": "Boatbuilder's Apprentice",
            "company": "Strand Boatyard",
            "employment_type": "APPRENTICESHIP",
            "valid_through": "2026-07-31",
            "salary": None,
        },
    ),
    # -- tables --------------------------------------------------------------------------------
    Case(
        "table",
        "data.test",
        "/tides/march",
        _page(
            "High tides, first week of March",
            "<table><tr><th>Date</th><th>Time</th><th>Height (m)</th></tr>"
            "<tr><td>1 March</td><td>06:12</td><td>4.8</td></tr>"
            "<tr><td>2 March</td><td>06:55</td><td>4.6</td></tr>"
            "<tr><td>3 March</td><td>07:41</td><td>4.3</td></tr></table>",
        ),
        _schema(
            tides={"type": "array", "items": _schema(date="string", time="string", height="number")}
        ),
        {
            "tides": [
                {"date": "1 March", "time": "06:12", "height": 4.8},
                {"date": "2 March", "time": "06:55", "height": 4.6},
                {"date": "3 March", "time": "07:41", "height": 4.3},
            ]
        },
    ),
    Case(
        "table",
        "data.test",
        "/league",
        _page(
            "Coastal league table",
            "<table><tr><th>Team</th><th>Played</th><th>Points</th></tr>"
            "<tr><td>Kelby Rovers</td><td>12</td><td>28</td></tr>"
            "<tr><td>Holm United</td><td>12</td><td>24</td></tr></table>",
        ),
        _schema(
            standings={
                "type": "array",
                "items": _schema(team="string", played="integer", points="integer"),
            }
        ),
        {
            "standings": [
                {"team": "Kelby Rovers", "played": 12, "points": 28},
                {"team": "Holm United", "played": 12, "points": 24},
            ]
        },
    ),
    Case(
        "table",
        "data.test",
        "/timetable/bus-7",
        _page(
            "Bus 7 timetable",
            "<p>Weekdays only.</p><table><thead><tr><th>Stop</th><th>Departs</th></tr></thead><tbody>"
            "<tr><td>Quay</td><td>08:05</td></tr><tr><td>Market Cross</td><td>08:12</td></tr>"
            "<tr><td>Hospital</td><td>08:24</td></tr></tbody></table>",
        ),
        _schema(stops={"type": "array", "items": _schema(stop="string", departs="string")}),
        {
            "stops": [
                {"stop": "Quay", "departs": "08:05"},
                {"stop": "Market Cross", "departs": "08:12"},
                {"stop": "Hospital", "departs": "08:24"},
            ]
        },
    ),
    Case(
        "table",
        "data.test",
        "/prices/heating-oil",
        _page(
            "Heating oil prices",
            "<table><tr><th>Supplier</th><th>Price per litre</th></tr>"
            "<tr><td>North Fuels</td><td>0.71</td></tr><tr><td>Quayside Oil</td><td>0.69</td></tr></table>",
        ),
        _schema(offers={"type": "array", "items": _schema(supplier="string", price="number")}),
        {
            "offers": [
                {"supplier": "North Fuels", "price": 0.71},
                {"supplier": "Quayside Oil", "price": 0.69},
            ]
        },
    ),
    Case(
        "table",
        "data.test",
        "/library/opening",
        _page(
            "Library opening hours",
            "<table><tr><th>Day</th><th>Opens</th><th>Closes</th></tr>"
            "<tr><td>Monday</td><td>09:00</td><td>17:00</td></tr>"
            "<tr><td>Saturday</td><td>10:00</td><td>13:00</td></tr></table>",
        ),
        _schema(
            hours={"type": "array", "items": _schema(day="string", opens="string", closes="string")}
        ),
        {
            "hours": [
                {"day": "Monday", "opens": "09:00", "closes": "17:00"},
                {"day": "Saturday", "opens": "10:00", "closes": "13:00"},
            ]
        },
    ),
)
