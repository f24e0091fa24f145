"""read_forum: a thread read as its posts (author, date, text), whatever the forum engine."""

from __future__ import annotations

import lxml.html

from netsift.fetch.forum import find_posts, read_forum


def _tree(body: str) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(f"<html><body>{body}</body></html>")


def _cells(author: str, date: str, text: str, stats: str) -> str:
    """A post laid out as an author cell and a message cell that share a base class."""
    return f"""<article class="message message--post">
<div class="message-cell message-cell--user"><h4 class="message-name">
<a class="username">{author}</a></h4><dl><dt>Joined</dt><dd>{stats}</dd></dl></div>
<div class="message-cell message-cell--main"><time>{date}</time>
<div class="message-body"><p>{text}</p></div></div></article>"""


def test_author_and_message_cells_are_one_post_not_two() -> None:
    thread = _tree(
        _cells("ana", "Jan 2, 2024", "The pump hums at night.", "Mar 3, 2011")
        + _cells("ben", "Jan 3, 2024", "Mine did that until I cleaned the filter.", "May 9, 2015")
    )
    posts = find_posts(thread)
    assert [p.get("class") for p in posts] == ["message message--post"] * 2
    text = read_forum(thread, None, "text") or ""
    assert "ana\nJan 2, 2024\n\nThe pump hums at night." in text
    assert "Joined" not in text and "Mar 3, 2011" not in text


def test_a_repeated_author_heading_is_not_a_post() -> None:
    # the author name repeated in a heading per post forms a bigger group than the posts
    post = """<div class="post"><h4 class="post-name"><a class="username">{0}</a></h4>
<h4 class="post-name"><a class="username">{0}</a></h4><span class="date">{1}</span>
<div class="content"><p>{2}</p></div></div>"""
    thread = _tree(
        post.format("ana", "May 1", "Which glue holds on wet stone?")
        + post.format("ben", "May 2", "Two-part epoxy, the marine kind.")
    )
    assert [p.get("class") for p in find_posts(thread)] == ["post", "post"]


def test_a_post_of_content_is_a_post_not_a_part() -> None:
    # "content-post" names a kind of post; "post-content" would name a part of one
    post = """<article class="post-box content-post-box"><span class="author">{0}</span>
<div class="post-body"><p>{1}</p></div></article>"""
    thread = _tree(
        post.format("ana", "Has anyone grown figs on a north wall?")
        + post.format("ben", "Yes, they fruit late but they fruit.")
    )
    text = read_forum(thread, None, "text") or ""
    assert "north wall" in text and "fruit late" in text


QA = """<div itemscope itemtype="https://schema.org/QAPage"><h1>Why does bread go stale?</h1>
<div itemprop="mainEntity" itemscope itemtype="https://schema.org/Question">
<div class="post-text" itemprop="text"><p>Mine is hard after two days. Why?</p></div>
<time itemprop="dateCreated" datetime="2021-03-04T10:00:00Z">Mar 4, 2021</time>
<div class="user-info" itemprop="author" itemscope itemtype="https://schema.org/Person">
<a href="/u/1">dora</a> <span class="rep">1,204</span> <span>3 gold badges</span></div>
<ul class="comments"><li itemprop="comment" itemscope itemtype="https://schema.org/Comment">
<span itemprop="text">Which flour do you use?</span>
<span itemprop="author" itemscope itemtype="https://schema.org/Person">
<span itemprop="name">eli</span></span></li></ul></div>
<div class="answer" itemprop="acceptedAnswer" itemscope itemtype="https://schema.org/Answer">
<div class="post-text" itemprop="text"><p>Starch recrystallises as the loaf cools.</p></div>
<time itemprop="dateCreated" datetime="2021-03-05T08:00:00Z"></time>
<div itemprop="author" itemscope itemtype="https://schema.org/Person"><a href="/u/2">finn</a>
</div></div>
<div class="answer" itemprop="suggestedAnswer" itemscope itemtype="https://schema.org/Answer">
<div class="post-text" itemprop="text"><p>Freeze it sliced and toast from frozen.</p></div>
</div></div>"""


def test_question_and_answers_read_as_posts_without_comments() -> None:
    text = read_forum(_tree(QA), None, "text") or ""
    assert "dora\nMar 4, 2021\n\nMine is hard after two days. Why?" in text
    assert "finn\n\nStarch recrystallises" in text and "toast from frozen" in text
    assert "Which flour" not in text and "gold badges" not in text
    md = read_forum(_tree(QA), None, "markdown") or ""
    assert md.startswith("### dora · Mar 4, 2021\n\nMine is hard") and "2021-03-05" not in md


def test_author_is_the_name_not_the_whole_user_card() -> None:
    post = """<div class="post"><div class="author-card">
<a class="avatar-link" href="/u/{0}"><span class="avatar">{1}</span> Offline</a>
<div class="card-name-with-badges"><a class="card__name" href="/u/{0}">{0}</a>
<span>Thread starter</span></div><span>1,204 posts · Joined 2011</span></div>
<span class="date">May {2}</span><div class="content"><p>{3}</p></div></div>"""
    thread = _tree(
        post.format("ana", "A", 1, "Does rye need a warmer proof than wheat?")
        + post.format("ben", "B", 2, "A little warmer and shorter, yes.")
    )
    text = read_forum(thread, None, "text") or ""
    assert text.startswith("ana\nMay 1\n\nDoes rye") and "\n\nben\nMay 2\n\n" in text
    assert "posts" not in text and "starter" not in text and "Offline" not in text


def test_author_falls_back_to_the_first_link_that_is_no_avatar() -> None:
    post = """<div class="post"><div class="byline"><a class="x" href="/u/{0}">
<img class="avatar" alt=""><span class="avatar">{1}</span></a> <a href="/u/{0}">{0}</a>
<span>Member since 2019</span></div><div class="content"><p>{2}</p></div></div>"""
    thread = _tree(
        post.format("ana", "A", "Is cast iron fine on induction?")
        + post.format("ben", "B", "Yes, it is magnetic.")
    )
    text = read_forum(thread, None, "text") or ""
    assert text.startswith("ana\n\nIs cast iron") and "\n\nben\n\nYes" in text


def test_labels_repeated_in_every_post_are_dropped() -> None:
    post = """<div class="post"><span class="username">{0}</span><div class="content">
<blockquote><div class="quote-title">{1} said:</div><p>{2}</p>
<div class="expander">Click to expand...</div></blockquote><p>{3}</p>
<ul class="post-links"><li><a href="#">Reply with quote</a></li></ul></div></div>"""
    thread = _tree(
        post.format("ana", "ben", "Old pots crack.", "Mine held for years, Thanks!")
        + post.format("ben", "ana", "Mine held.", "Lucky you, Thanks!")
        + post.format("cara", "ben", "Lucky you.", "Glaze matters most.")
    )
    text = read_forum(thread, None, "text") or ""
    assert "Click to expand" not in text and "Reply with quote" not in text
    assert "ben said:" in text and "Glaze matters most." in text
    assert "Mine held for years, Thanks!" in text


def test_camel_case_post_classes_are_posts() -> None:
    post = """<article class="cPost ipsComment"><aside class="ipsComment_author">
<h3 class="cAuthorPane_author"><a href="/u/{0}">{0}</a></h3></aside>
<div class="ipsComment_content"><time datetime="2024-03-19">March {1}, 2024</time>
<div class="ipsType_richText"><p>{2}</p></div></div></article>"""
    thread = _tree(
        post.format("ana", 19, "What is the port under the PSU for?")
        + post.format("ben", 20, "It is for the lighting hub cable.")
    )
    text = read_forum(thread, None, "text") or ""
    assert text.startswith("ana\nMarch 19, 2024\n\n") and "lighting hub cable" in text


def test_post_wrapper_is_the_post_and_signatures_are_dropped() -> None:
    post = """<div class="post_wrapper"><div class="poster"><h4><a href="/u/{0}">{0}</a></h4>
</div><div class="postarea"><div class="keyinfo">{1}</div><div class="post"><p>{2}</p></div>
<div class="signature">{0} runs three hives in the valley.</div>
<div data-role="memberSignature"><p>Ask me about {0}'s honey</p></div></div></div>"""
    thread = _tree(
        post.format("ana", "June 4, 2024", "When do you add the second super?")
        + post.format("ben", "June 5, 2024", "When seven of ten frames are drawn.")
    )
    text = read_forum(thread, None, "text") or ""
    assert "ana\n" in text and "second super" in text and "seven of ten" in text
    assert "hives in the valley" not in text and "honey" not in text


def test_camel_case_parts_and_a_plain_name_class() -> None:
    # "postItem" is a post, "postText" and "postButtons" its parts; the author is in "name"
    post = """<div class="bg1 postItem"><div class="left"><div class="name">
<a href="/u/{0}">{0}</a></div><div class="posts">Posts: 4958</div></div>
<div class="right"><span class="post-date">{1}</span><span class="postButtons">
<a href="#">quote</a></span><div class="postText">{2}</div></div></div>"""
    thread = _tree(
        post.format("ana", "Sep 16, 2019", "A year in a tiny house: pros and cons.")
        + post.format("ben", "Sep 17, 2019", "How do you heat it in winter?")
    )
    assert [p.get("class") for p in find_posts(thread)] == ["bg1 postItem"] * 2
    text = read_forum(thread, None, "text") or ""
    assert "ana\nSep 16, 2019\n\nA year in a tiny house" in text and "heat it" in text


def test_a_field_with_a_hidden_label_is_still_read() -> None:
    post = """<div class="post-wrap"><span class="author-details__username">{0}</span>
<div class="post-body"><div class="field field--name-comment-body field--label-hidden">
<p>{1}</p></div></div></div>"""
    thread = _tree(
        post.format("ana", "Is consulting worth the hours?")
        + post.format("ben", "Only if the exits matter to you.")
    )
    text = read_forum(thread, None, "text") or ""
    assert "worth the hours" in text and "exits matter" in text


def test_the_starters_posts_classed_apart_stay_in_the_thread() -> None:
    post = """<li class="{0}"><span class="username">{1}</span><div class="content">
<p>{2}</p></div></li>"""
    thread = _tree(
        "<ul>"
        + post.format("topic-owner-post", "ana", "How do I load a saved route on the phone?")
        + post.format("", "ben", "Open favourites and tap the route.")
        + post.format("", "cara", "Sync takes a minute after saving.")
        + post.format("topic-owner-post", "ana", "Found it, thanks both.")
        + "</ul>"
    )
    for li in thread.iter("li"):  # the replies are posts by their markup, not by their class
        if not li.get("class"):
            li.set("itemtype", "https://schema.org/Comment")
    text = read_forum(thread, None, "text") or ""
    assert text.index("saved route") < text.index("favourites") < text.index("Found it")
    assert text.count("saved route") == 1


def test_a_block_repeating_a_post_beside_the_posts_is_not_read_twice() -> None:
    post = """<div class="crawler-post"><span class="creator">{0}</span><div class="post">
<p>{1}</p></div></div>"""
    thread = _tree(
        """<div itemtype="https://schema.org/DiscussionForumPosting"><span class="creator">ana
</span><div class="post"><p>Which sealant for a shower tray?</p></div></div>"""
        + post.format("ana", "Which sealant for a shower tray?")
        + post.format("ben", "A sanitary silicone with fungicide.")
    )
    text = read_forum(thread, None, "text") or ""
    assert text.count("shower tray") == 1 and "fungicide" in text


def test_the_message_inside_a_post_body_leaves_subject_and_by_line_out() -> None:
    post = """<div class="post"><dl class="postprofile"><dt><a class="username">{0}</a></dt></dl>
<div class="postbody"><h3>Re: VirtualBox 7.1 is out</h3><p class="author">by {0} » {1}</p>
<div class="content">{2}</div></div></div>"""
    thread = _tree(
        post.format(
            "ana",
            "11. Sep 2024",
            "The new release needs a reboot after installing it, "
            "and the guest additions should be updated in every guest as well.",
        )
        + post.format(
            "ben",
            "12. Sep 2024",
            "NAT networking broke for me after the upgrade; "
            "going back to the second beta brought the guests' internet back.",
        )
    )
    text = read_forum(thread, None, "text") or ""
    assert "reboot after installing" in text and "NAT networking" in text
    assert "Re: VirtualBox" not in text and "by ana" not in text


def test_table_posts_with_ids_and_a_prefixed_username_class() -> None:
    # vBulletin 3 style: tables carry the post id, the body a post_message id
    post = """<table id="post{0}" class="tborder"><tr><td>{1} #{0} | Link</td></tr>
<tr><td><a class="bigusername" href="/m/{2}">{2}</a><div>Registered User</div></td>
<td><div class="smallfont"><strong>Wrong refresh rate</strong></div>
<div id="post_message_{0}">{3}</div></td></tr></table>"""
    thread = _tree(
        post.format(1, "30th March 2025", "ana", "My card reports 23.951 Hz instead of 23.976 Hz.")
        + post.format(2, "2nd April 2025", "ben", "Try a custom resolution in the driver panel.")
    )
    text = read_forum(thread, None, "text") or ""
    assert text.startswith("ana\n\nMy card reports") and "\n\nben\n\nTry a custom" in text
    assert "Registered User" not in text and "refresh rate" not in text


def test_the_opening_post_marked_apart_from_the_comments_is_read_first() -> None:
    comment = """<li class="Item ItemComment"><div class="Comment"><span class="Author">
<a href="/u/{0}">{0}</a></span><span class="DateCreated">{1}</span>
<div class="Message userContent">{2}</div></div></li>"""
    page = _tree(
        """<h1>Open source edition ends</h1><div class="Discussion"><span class="Author">
<a href="/u/ana">ana</a></span><span class="DateCreated">Mar 1</span>
<div class="Message userContent">The open source edition gets no more releases, so plan
a migration before the end of the year.</div></div><ul class="Comments">"""
        + comment.format("ben", "Mar 2", "Sad news, thanks for all the years.")
        + comment.format("cara", "Mar 3", "Which forum software do you suggest instead?")
        + "</ul>"
    )
    text = read_forum(page, None, "text") or ""
    assert text.startswith("ana\nMar 1\n\nThe open source edition")
    assert text.index("plan") < text.index("Sad news") < text.index("Which forum")


def test_controls_inside_a_post_are_not_its_text() -> None:
    post = """<div class="post"><span class="username">{0}</span><div class="content">
<blockquote>{1} said: It rains.<div class="quote-more"><a role="button">Click to expand...</a>
</div></blockquote><p>{2}</p></div></div>"""
    thread = _tree(
        post.format("ana", "ben", "Bring a coat then.") + post.format("ben", "ana", "I will.")
    )
    text = read_forum(thread, None, "text") or ""
    assert "Bring a coat then." in text and "said: It rains." in text
    assert "Click to expand" not in text


def test_the_author_and_date_restated_in_the_body_are_said_once() -> None:
    post = """<article class="post"><aside><span class="author">{0}</span></aside>
<div class="post-content"><div class="meta"><a href="#">Posted <time>{1}</time></a></div>
<p class="by">by {0}</p><div class="text"><p>{2}</p></div></div></article>"""
    thread = _tree(
        post.format("ana", "October 29, 2025", "Where does the payment module keep its data?")
        + post.format("ben", "October 30, 2025", "In its own table, next to the orders.")
    )
    text = read_forum(thread, None, "text") or ""
    assert text.startswith("ana\nOctober 29, 2025\n\nWhere does")
    assert "Posted" not in text and "by ana" not in text and text.count("October 29") == 1


def test_edit_notes_are_not_the_post() -> None:
    post = """<div class="post"><span class="username">{0}</span><div class="content"><p>{1}</p>
<div class="message-lastEdit">Last edited: Jul 28, 2024</div></div></div>"""
    thread = _tree(post.format("ana", "Squad list updated.") + post.format("ben", "Thanks."))
    text = read_forum(thread, None, "text") or ""
    assert "Squad list updated." in text and "Last edited" not in text


def test_reply_subjects_repeating_the_thread_subject_are_dropped() -> None:
    post = """<div class="post"><span class="username">{0}</span><div class="content">
<h3>{1}</h3><p>{2}</p></div></div>"""
    thread = _tree(
        post.format("ana", "Pond pump hums at night", "It hums from midnight on.")
        + post.format("ben", "Re: Pond pump hums at night", "Clean the impeller.")
        + post.format("cara", "Re: Pond pump hums at night", "Check the mounting feet.")
        + post.format("dan", "Rubber feet help", "Mine stopped with rubber feet.")
    )
    text = read_forum(thread, None, "text") or ""
    assert "Pond pump hums" not in text and "Rubber feet help" in text
    assert "Clean the impeller." in text


def test_a_relative_date_is_no_date() -> None:
    post = """<div class="post"><span class="username">{0}</span><span class="date">{1}</span>
<div class="content"><p>{2}</p></div></div>"""
    thread = _tree(
        post.format("ana", "17 hours ago", "Hair follicles grown in a lab.")
        + post.format("ben", "May 2, 2024", "In mice so far.")
    )
    text = read_forum(thread, None, "text") or ""
    assert text.startswith("ana\n\nHair follicles") and "ben\nMay 2, 2024\n\nIn mice" in text
    assert "ago" not in text


def test_links_without_a_target_are_controls() -> None:
    post = """<div class="post"><span class="username">{0}</span><div class="content">
<blockquote>It rains.<div class="shrinker"><a>Click to shrink...</a></div></blockquote>
<p>{1} <a href="/wiki/coat">coat</a></p></div></div>"""
    thread = _tree(post.format("ana", "Bring a") + post.format("ben", "I packed a"))
    text = read_forum(thread, None, "text") or ""
    assert "Bring a coat" in text and "Click to shrink" not in text


def test_a_quote_of_an_earlier_post_is_not_read_twice() -> None:
    post = """<div class="post"><span class="username">{0}</span><div class="content">{1}
<p>{2}</p></div></div>"""
    first = (
        "The Caldera Closed is the best closed headphone I have heard this year; the stage is "
        "wide and the mids are smooth."
    )
    thread = _tree(
        post.format("ana", "", first)
        + post.format("ben", f'<blockquote class="quote">ana said: {first}</blockquote>', "Agreed.")
        + post.format(
            "cara",
            '<div class="bbcode-quote">A quote from another thread entirely, kept in full.</div>',
            "Worth a listen.",
        )
    )
    text = read_forum(thread, None, "text") or ""
    assert text.count("best closed headphone") == 1 and "Agreed." in text
    assert "another thread entirely" in text


def test_an_author_beside_the_post_text_is_said_once() -> None:
    # no body element: the author's name and the date sit in the post node beside the text
    post = """<div class="post"><span class="username"><a href="/u/{0}">{0}</a></span>
<time>{1}</time><p>{2}</p></div>"""
    thread = _tree(
        post.format("marta", "June 2, 2024", "My tomatoes split after every rain.")
        + post.format("oskar", "June 3, 2024", "Mulch the beds and water deeply.")
    )
    markdown = read_forum(thread, None, "markdown") or ""
    assert markdown.count("marta") == 1 and markdown.count("June 2, 2024") == 1
    assert "### marta · June 2, 2024\n\nMy tomatoes split" in markdown
    text = read_forum(thread, None, "text") or ""
    assert text.count("oskar") == 1
    assert "oskar\nJune 3, 2024\n\nMulch the beds" in text


def test_a_byline_goes_with_the_author_it_names() -> None:
    # "submitted 3 hours ago by ana" without the name would read "by" alone
    post = """<div class="thing post"><p class="tagline">submitted <time>{1}</time> by
<a class="author" href="/u/{0}">{0}</a></p><p>{2}</p></div>"""
    thread = _tree(
        post.format("ana", "3 hours ago", "The pump hums at night.")
        + post.format("ben", "2 hours ago", "Mine did that until I cleaned the filter.")
    )
    text = read_forum(thread, None, "text") or ""
    assert "submitted" not in text and " by" not in text
    assert "ana\n\nThe pump hums at night." in text


def test_the_author_card_of_a_post_without_a_body_goes() -> None:
    # the card (name, rank, post count) sits in the post node beside the text
    post = """<div class="post"><div class="poster"><h4><a href="/u/{0}">{0}</a></h4>
<ul><li>Senior Member</li><li>Posts: {1}</li></ul></div>
<div class="postarea"><p>{2}</p></div></div>"""
    thread = _tree(
        post.format("ana", "3,760", "Which glue holds on wet stone in a garden wall?")
        + post.format("ben", "812", "Two-part epoxy, the marine kind, holds for years.")
    )
    markdown = read_forum(thread, None, "markdown") or ""
    assert "### ana\n\nWhich glue holds" in markdown
    assert "Posts:" not in markdown and "Senior Member" not in markdown
