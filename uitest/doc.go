// Package uitest drives miniplane's browser views in a real browser
// (chromedp and /usr/bin/chromium, or $CHROMIUM). It is a module of its own
// so that the main module never imports chromedp; its tests skip when no
// browser is installed.
package uitest
