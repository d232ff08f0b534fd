package iam

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Account is an IAM account's users, groups, roles and managed policies,
// as `aws iam get-account-authorization-details` prints them.
type Account struct {
	ID    string
	users map[string]*Principal // by UserName
	roles map[string]*role      // by role ARN
}

type role struct {
	name, id, arn string
	tags          map[string]string
	policies      []*Policy
}

// The JSON shapes of get-account-authorization-details (only the members
// Kura reads).
type (
	authDetails struct {
		UserDetailList  []userDetail
		GroupDetailList []groupDetail
		RoleDetailList  []roleDetail
		Policies        []managedPolicy
	}
	userDetail struct {
		UserName, UserId, Arn   string
		GroupList               []string
		UserPolicyList          []inlinePolicy
		AttachedManagedPolicies []attached
		Tags                    []tag
	}
	groupDetail struct {
		GroupName               string
		GroupPolicyList         []inlinePolicy
		AttachedManagedPolicies []attached
	}
	roleDetail struct {
		RoleName, RoleId, Arn   string
		RolePolicyList          []inlinePolicy
		AttachedManagedPolicies []attached
		Tags                    []tag
	}
	inlinePolicy struct {
		PolicyName     string
		PolicyDocument json.RawMessage
	}
	attached      struct{ PolicyName, PolicyArn string }
	tag           struct{ Key, Value string }
	managedPolicy struct {
		PolicyName, Arn, DefaultVersionId string
		PolicyVersionList                 []struct {
			Document         json.RawMessage
			VersionId        string
			IsDefaultVersion bool
		}
	}
)

// ParseAccount reads a get-account-authorization-details document for
// account id (the account Kura's ARNs name). Every policy must parse and
// every attached managed policy must be in Policies with a default
// version: a document that does not hold together is refused whole.
func ParseAccount(id string, doc []byte) (*Account, error) {
	var d authDetails
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("not a get-account-authorization-details document: %v", err)
	}
	managed := map[string]*Policy{}
	for _, mp := range d.Policies {
		for _, v := range mp.PolicyVersionList {
			if !v.IsDefaultVersion && v.VersionId != mp.DefaultVersionId {
				continue
			}
			p, err := parseDocument(mp.Arn, v.Document)
			if err != nil {
				return nil, err
			}
			managed[mp.Arn] = p
		}
	}
	resolve := func(owner string, inline []inlinePolicy, att []attached) ([]*Policy, error) {
		var out []*Policy
		for _, ip := range inline {
			p, err := parseDocument(owner+" inline policy "+ip.PolicyName, ip.PolicyDocument)
			if err != nil {
				return nil, err
			}
			p.Name = ip.PolicyName
			out = append(out, p)
		}
		for _, a := range att {
			p, ok := managed[a.PolicyArn]
			if !ok {
				return nil, fmt.Errorf("%s: attached policy %s has no default version in Policies", owner, a.PolicyArn)
			}
			out = append(out, p)
		}
		return out, nil
	}
	groups := map[string][]*Policy{}
	for _, g := range d.GroupDetailList {
		ps, err := resolve("group "+g.GroupName, g.GroupPolicyList, g.AttachedManagedPolicies)
		if err != nil {
			return nil, err
		}
		groups[g.GroupName] = ps
	}
	a := &Account{ID: id, users: map[string]*Principal{}, roles: map[string]*role{}}
	for _, u := range d.UserDetailList {
		ps, err := resolve("user "+u.UserName, u.UserPolicyList, u.AttachedManagedPolicies)
		if err != nil {
			return nil, err
		}
		for _, g := range u.GroupList {
			gp, ok := groups[g]
			if !ok {
				return nil, fmt.Errorf("user %s: group %s is not in GroupDetailList", u.UserName, g)
			}
			ps = append(ps, gp...)
		}
		arn := u.Arn
		if arn == "" {
			arn = "arn:aws:iam::" + id + ":user/" + u.UserName
		}
		a.users[u.UserName] = &Principal{ARN: arn, Account: id, UserName: u.UserName, UserID: u.UserId,
			Tags: tags(u.Tags), Policies: ps}
	}
	for _, r := range d.RoleDetailList {
		ps, err := resolve("role "+r.RoleName, r.RolePolicyList, r.AttachedManagedPolicies)
		if err != nil {
			return nil, err
		}
		arn := r.Arn
		if arn == "" {
			arn = "arn:aws:iam::" + id + ":role/" + r.RoleName
		}
		a.roles[arn] = &role{name: r.RoleName, id: r.RoleId, arn: arn, tags: tags(r.Tags), policies: ps}
	}
	return a, nil
}

// parseDocument reads a policy document that the API returns as a JSON
// object or as a URL-encoded JSON string.
func parseDocument(name string, raw json.RawMessage) (*Policy, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return Parse(name, []byte(s))
	}
	return Parse(name, raw)
}

func tags(ts []tag) map[string]string {
	if len(ts) == 0 {
		return nil
	}
	m := make(map[string]string, len(ts))
	for _, t := range ts {
		m[t.Key] = t.Value
	}
	return m
}

// Root is the account's root user.
func (a *Account) Root() *Principal {
	return &Principal{ARN: "arn:aws:iam::" + a.ID + ":root", Account: a.ID, UserID: a.ID, Root: true}
}

// Resolve finds the principal a credential names: "" for the root user,
// an IAM user's UserName, a role's ARN (a session named session, the
// access key ID by default) or an assumed-role session's ARN
// (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION).
func (a *Account) Resolve(name, session string) (*Principal, error) {
	if name == "" {
		return a.Root(), nil
	}
	if !strings.HasPrefix(name, "arn:") {
		u, ok := a.users[name]
		if !ok {
			return nil, fmt.Errorf("no IAM user %q in the IAM file", name)
		}
		return u, nil
	}
	roleARN := name
	if rest, ok := strings.CutPrefix(name, "arn:aws:sts::"); ok {
		acct, path, _ := strings.Cut(rest, ":assumed-role/")
		rname, sess, ok := strings.Cut(path, "/")
		if !ok || sess == "" {
			return nil, fmt.Errorf("principal %q: want arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION", name)
		}
		roleARN, session = "", sess
		for arn, r := range a.roles {
			if r.name == rname && strings.HasPrefix(arn, "arn:aws:iam::"+acct+":role/") {
				roleARN = arn
			}
		}
		if roleARN == "" {
			return nil, fmt.Errorf("principal %q: no role %s in the IAM file", name, rname)
		}
	}
	r, ok := a.roles[roleARN]
	if !ok {
		return nil, fmt.Errorf("no IAM role %q in the IAM file", name)
	}
	acct := accountOf(r.arn, a.ID)
	return &Principal{ARN: "arn:aws:sts::" + acct + ":assumed-role/" + r.name + "/" + session, RoleARN: r.arn,
		Account: acct, UserID: r.id + ":" + session, Tags: r.tags, Policies: r.policies}, nil
}

// accountOf is the account field of an ARN (def when it has none).
func accountOf(arn, def string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) == 6 && parts[4] != "" {
		return parts[4]
	}
	return def
}
