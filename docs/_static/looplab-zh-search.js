// The Chinese search page's summary line. Sphinx 8.2 asks for it under a msgid its zh_CN
// catalog does not have yet (the catalog holds the older "page(s)" wording), so the line
// came out in English. Chinese has one form for any number of pages.
Documentation.TRANSLATIONS["Search finished, found one page matching the search query."] = [
  "搜索完成，找到 ${resultCount} 个匹配的页面。",
];
