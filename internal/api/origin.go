package api

import (
	"net"
	"net/url"
	"strings"
)

// OriginPolicy guards a server that browsers can reach. With
// authentication off (the default) any web page a developer visits could
// otherwise call the API through their browser: CORS lets only the
// origins it names read answers (and send the X-Amz-Target header at
// all, which needs a preflight), and the Host check stops DNS rebinding,
// where a page's own name is pointed at 127.0.0.1 and its requests reach
// Kura as same-origin ones carrying that name as Host.
type OriginPolicy struct {
	// Origins are the browser origins (scheme://host[:port]) allowed
	// besides the default ones: the console's own origin (the request's
	// Host) and loopback origins (localhost, *.localhost, 127.0.0.0/8,
	// [::1]). "*" allows every origin.
	Origins []string
	// CheckHost turns the Host check on (the kura binary's default;
	// --allow-any-host turns it off): a request's Host must then be an IP
	// address, localhost (or a name under .localhost), or one of
	// ListenHosts, or a name of one label (no dot).
	CheckHost bool
	// ListenHosts are the names the server listens under (the host of
	// --listen), allowed as Host.
	ListenHosts []string
}

// hostAllowed reports whether a request with this Host header is served.
// An IP address is always allowed (DNS rebinding needs a name), and so is
// a name of one label (a container's service name, "kura"): a rebinding
// page's name is one its author registered, in a public domain.
func (p *OriginPolicy) hostAllowed(host string) bool {
	if !p.CheckHost || host == "" {
		return true
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.Trim(name, "[]"), ".")
	if net.ParseIP(name) != nil || isLocalhost(name) || !strings.Contains(name, ".") {
		return true
	}
	for _, l := range p.ListenHosts {
		if strings.EqualFold(name, l) {
			return true
		}
	}
	return false
}

// originAllowed reports whether a browser page of origin may call the API
// it reaches under host.
func (p *OriginPolicy) originAllowed(origin, host string) bool {
	for _, o := range p.Origins {
		if o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true // the console's own page
	}
	name := u.Hostname()
	if isLocalhost(name) {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// anyOrigin reports whether every origin is allowed (answered "*").
func (p *OriginPolicy) anyOrigin() bool {
	for _, o := range p.Origins {
		if o == "*" {
			return true
		}
	}
	return false
}

func isLocalhost(name string) bool {
	name = strings.ToLower(name)
	return name == "localhost" || strings.HasSuffix(name, ".localhost")
}
